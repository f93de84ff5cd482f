// What GET /v1/portfolio answered on the demo before the portfolio was stored at booking
// (test/fixtures/portfolio-demo-before.json, recorded from main): the answer's own owner, dataset
// and asOf, then the recorded body, so an answer is compared byte for byte.
import golden from "../fixtures/portfolio-demo-before.json" with { type: "json" };

const bodies = golden.bodies as Record<string, string>;

export const demoPortfolioOwners = Object.keys(bodies);

/** Main's answer for `owner`, at the dataset label and asOf this answer (`text`) carries. */
export function mainsAnswer(text: string, owner: string): string {
  const { dataset, asOf } = JSON.parse(text);
  return `${JSON.stringify({ owner, dataset, asOf }).slice(0, -1)},${bodies[owner]!.slice(1)}`;
}
