import { SCOPE } from "@/lib/auth/scopes";
import { createEmbeddings, EMBEDDINGS_BODY_LIMIT, EmbeddingsInput } from "@/lib/embeddings";
import { apiRoute, readJson, routes } from "@/lib/http";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth, requestId }) => {
    const input = await readJson(req, EmbeddingsInput, { limitBytes: EMBEDDINGS_BODY_LIMIT });
    const body = await createEmbeddings({ auth, input, requestId });
    return new Response(body, { headers: { "content-type": "application/json" } });
  }),
});
