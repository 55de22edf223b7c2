import { Badge } from "@/components/ui/badge";
import { RUN_STATUS_TONE, type PublicRun } from "./api";

export function RunStatusBadge({ status }: { status: PublicRun["status"] }) {
  return (
    <Badge tone={RUN_STATUS_TONE[status]} dot data-testid="run-status" data-status={status}>
      {status.replace("_", " ")}
    </Badge>
  );
}
