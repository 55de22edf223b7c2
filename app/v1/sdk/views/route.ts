import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { listServices } from "@/lib/sdk";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.view }, async () => Response.json(listServices())),
});
