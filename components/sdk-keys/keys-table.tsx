"use client";

import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { formatInt } from "@/components/panel/format";
import { Timestamp } from "@/components/panel/timestamp";
import { KEY_DISPLAY_STATUS } from "@/lib/keys/to-public-key";
import type { PublicKey } from "./api";
import { KeyStatusBadge } from "./key-status-badge";
import { RevokeKeyDialog } from "./revoke-key-dialog";

export function KeysTable({ keys }: { keys: PublicKey[] }) {
  if (keys.length === 0)
    return (
      <EmptyState title="No API keys yet">
        Press <span className="font-medium text-slate-700">Create key</span> to get a secret for your apps: send it as{" "}
        <code className="font-mono text-xs">Authorization: Bearer …</code> to the /v1 API (OpenAI clients work with the
        base URL changed).
      </EmptyState>
    );
  return (
    <Table data-testid="keys-table">
      <THead>
        <tr>
          <TH>Name</TH>
          <TH className="hidden md:table-cell">Key</TH>
          <TH className="hidden sm:table-cell">Scopes</TH>
          <TH align="right" className="hidden lg:table-cell">
            Rate limit
          </TH>
          <TH className="hidden lg:table-cell">Created</TH>
          <TH className="hidden md:table-cell">Last used</TH>
          <TH>Status</TH>
          <TH>
            <span className="sr-only">Actions</span>
          </TH>
        </tr>
      </THead>
      <TBody>
        {keys.map((key) => (
          <KeyRow key={key.id} apiKey={key} />
        ))}
      </TBody>
    </Table>
  );
}

function KeyRow({ apiKey }: { apiKey: PublicKey }) {
  const active = apiKey.status === KEY_DISPLAY_STATUS.active;
  return (
    <TR
      data-testid="key-row"
      data-key-id={apiKey.id}
      data-key-name={apiKey.name}
      className={active ? undefined : "text-slate-500"}
    >
      <TD className="max-w-44 sm:max-w-56">
        <div className={`truncate font-medium ${active ? "text-slate-900" : "text-slate-500"}`} title={apiKey.name}>
          {apiKey.name}
        </div>
        <div className="truncate font-mono text-xs text-slate-400">{apiKey.id}</div>
      </TD>
      <TD className="hidden md:table-cell">
        <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700" data-testid="key-prefix">
          {apiKey.prefix}…
        </code>
      </TD>
      <TD className="hidden sm:table-cell">
        <div className="flex flex-wrap gap-1">
          {apiKey.scopes.map((scope) => (
            <Badge key={scope} tone="indigo">
              {scope}
            </Badge>
          ))}
        </div>
      </TD>
      <TD align="right" className="hidden lg:table-cell">
        {formatInt(apiKey.rate_limit_per_minute)}
        <span className="text-slate-400"> / min</span>
      </TD>
      <TD className="hidden lg:table-cell">
        <Timestamp unix={apiKey.created_at} style="date" />
      </TD>
      <TD className="hidden md:table-cell">
        <Timestamp unix={apiKey.last_used_at} style="relative" empty="Never" />
      </TD>
      <TD>
        <KeyStatusBadge status={apiKey.status} />
        {apiKey.expires_at !== null && active && (
          <div className="mt-1 text-xs text-slate-400">
            Expires <Timestamp unix={apiKey.expires_at} style="date" />
          </div>
        )}
      </TD>
      <TD align="right">{active && <RevokeKeyDialog apiKey={apiKey} />}</TD>
    </TR>
  );
}
