"use client";

import { Badge } from "@/components/ui/badge";
import { Table, TableMessage, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { formatInt } from "@/components/panel/format";
import { Timestamp } from "@/components/panel/timestamp";
import { KEY_DISPLAY_STATUS } from "@/lib/keys/to-public-key";
import type { PublicKey } from "./api";
import { KeyStatusBadge } from "./key-status-badge";
import { RevokeKeyDialog } from "./revoke-key-dialog";

const COLUMNS = 8;

export function KeysTable({ keys }: { keys: PublicKey[] }) {
  return (
    <Table data-testid="keys-table">
      <THead>
        <tr>
          <TH>Name</TH>
          <TH>Key</TH>
          <TH>Scopes</TH>
          <TH align="right">Rate limit</TH>
          <TH>Created</TH>
          <TH>Last used</TH>
          <TH>Status</TH>
          <TH>
            <span className="sr-only">Actions</span>
          </TH>
        </tr>
      </THead>
      <TBody>
        {keys.length === 0 ? (
          <TableMessage colSpan={COLUMNS}>
            <p className="font-medium text-slate-700">No API keys yet</p>
            <p className="mt-1">Create a key to call the gateway from your apps.</p>
          </TableMessage>
        ) : (
          keys.map((key) => <KeyRow key={key.id} apiKey={key} />)
        )}
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
      <TD className="max-w-56">
        <div className={`truncate font-medium ${active ? "text-slate-900" : "text-slate-500"}`} title={apiKey.name}>
          {apiKey.name}
        </div>
        <div className="truncate font-mono text-xs text-slate-400">{apiKey.id}</div>
      </TD>
      <TD>
        <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700" data-testid="key-prefix">
          {apiKey.prefix}…
        </code>
      </TD>
      <TD>
        <div className="flex flex-wrap gap-1">
          {apiKey.scopes.map((scope) => (
            <Badge key={scope} tone="indigo">
              {scope}
            </Badge>
          ))}
        </div>
      </TD>
      <TD align="right">
        {formatInt(apiKey.rate_limit_per_minute)}
        <span className="text-slate-400"> / min</span>
      </TD>
      <TD>
        <Timestamp unix={apiKey.created_at} style="date" />
      </TD>
      <TD>
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
