// The dashboard's script: bundled with its libraries into one file by scripts/gen-dashboard.ts.
import { render } from "preact";
import { App } from "./views/App.tsx";

render(<App />, document.getElementById("app")!);
