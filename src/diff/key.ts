// The identity diff matches objects by; the systems' consequences pair an object's sides by it too.
export { objectKeyOf } from "../systems/consequences.ts";
