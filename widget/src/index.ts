/** Entry of `/v1/sdk/sdui-embed.js`: defines `<cockpit-widget>` once, however often the script is loaded. */
import { CockpitWidget } from "./element";

if (!customElements.get("cockpit-widget")) customElements.define("cockpit-widget", CockpitWidget);

export { CockpitWidget };
