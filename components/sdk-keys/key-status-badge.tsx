import { Badge, type BadgeTone } from "@/components/ui/badge";
import { KEY_DISPLAY_STATUS, type KeyDisplayStatus } from "@/lib/keys/to-public-key";

const TONE: Record<KeyDisplayStatus, BadgeTone> = {
  [KEY_DISPLAY_STATUS.active]: "green",
  [KEY_DISPLAY_STATUS.revoked]: "red",
  [KEY_DISPLAY_STATUS.expired]: "amber",
};

export function KeyStatusBadge({ status }: { status: KeyDisplayStatus }) {
  return (
    <Badge tone={TONE[status]} dot data-testid="key-status" data-status={status}>
      {status}
    </Badge>
  );
}
