/**
 * Every file, tests, benches and e2e included (`npm run lint:deps`): the rules of
 * .dependency-cruiser.cjs but the folder cycles, which a test reaching across folders would make.
 */
import base from "./.dependency-cruiser.cjs";

export default { ...base, forbidden: base.forbidden.filter((rule) => rule.name !== "no-circular-folders") };
