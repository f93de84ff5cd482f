// Documentation pages embedded as text (`import page from "…md" with { type: "text" }`).
declare module "*.md" {
  const text: string;
  export default text;
}
