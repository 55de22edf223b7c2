// rate-limiter-flexible ships the store base class without a typed subpath; its index types it.
declare module "rate-limiter-flexible/lib/RateLimiterStoreAbstract" {
  import { RateLimiterStoreAbstract } from "rate-limiter-flexible";
  export default RateLimiterStoreAbstract;
}
