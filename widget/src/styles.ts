/**
 * The widget's stylesheet. Inherited properties are set on `.root`, not `:host`, since a host rule
 * like `* { font: … }` beats `:host` but cannot reach inside. Theme via `--cockpit-*` custom
 * properties and `::part()`.
 */
export const CSS = `
:host{display:block;contain:content}
:host([hidden]){display:none}
.root{all:initial;display:block;box-sizing:border-box;
--bg:var(--cockpit-bg,#fff);--fg:var(--cockpit-fg,#0f172a);--muted:var(--cockpit-muted,#64748b);
--border:var(--cockpit-border,#e2e8f0);--surface:var(--cockpit-surface,#f8fafc);
--accent:var(--cockpit-accent,#4f46e5);--accent-fg:var(--cockpit-accent-fg,#fff);
--danger:var(--cockpit-danger,#dc2626);--radius:var(--cockpit-radius,8px);--gap:var(--cockpit-gap,12px);
--info:#2563eb;--success:#16a34a;--warning:#d97706;
font-family:var(--cockpit-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);font-size:var(--cockpit-font-size,14px);
line-height:1.45;color:var(--fg);background:var(--bg);border:1px solid var(--border);border-radius:var(--radius);padding:var(--gap);text-align:start}
@media (prefers-color-scheme:dark){.root{--bg:var(--cockpit-bg,#0f172a);--fg:var(--cockpit-fg,#e2e8f0);--muted:var(--cockpit-muted,#94a3b8);
--border:var(--cockpit-border,#334155);--surface:var(--cockpit-surface,#1e293b);--accent:var(--cockpit-accent,#818cf8);--accent-fg:var(--cockpit-accent-fg,#0f172a);--danger:var(--cockpit-danger,#f87171)}}
*,*::before,*::after{box-sizing:border-box}
h2,h3,p,ul,dl,dd,fieldset{margin:0;padding:0}
h2{font-size:1.25em;font-weight:600}h3{font-size:1em;font-weight:600}
.page,.stack,.form{display:flex;flex-direction:column;gap:var(--gap)}
.stack.row{flex-direction:row;flex-wrap:wrap;align-items:flex-start}
.muted,.text.muted{color:var(--muted)}.small{font-size:.85em}
.stat{display:flex;flex-direction:column;min-width:8em;padding:8px 12px;border:1px solid var(--border);border-radius:var(--radius);background:var(--surface)}
.stat-value{font-size:1.35em;font-weight:600;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:.8em;font-weight:500;background:color-mix(in srgb,var(--muted) 18%,transparent)}
.badge[data-tone=info]{color:var(--info);background:color-mix(in srgb,var(--info) 15%,transparent)}
.badge[data-tone=success]{color:var(--success);background:color-mix(in srgb,var(--success) 15%,transparent)}
.badge[data-tone=warning]{color:var(--warning);background:color-mix(in srgb,var(--warning) 15%,transparent)}
.badge[data-tone=danger]{color:var(--danger);background:color-mix(in srgb,var(--danger) 15%,transparent)}
.table-wrap{overflow-x:auto;display:flex;flex-direction:column;gap:8px;align-items:flex-start}
table{border-collapse:collapse;width:100%;font:inherit;color:inherit;background:none;border:0}
th,td{text-align:start;padding:6px 10px;border:0;border-bottom:1px solid var(--border);font:inherit;color:inherit;background:none;vertical-align:middle}
th{font-weight:600;color:var(--muted);font-size:.85em}
td[part~=row-actions]{white-space:nowrap}td[part~=row-actions]>*+*{margin-inline-start:6px}
.board{display:flex;gap:var(--gap);overflow-x:auto;align-items:flex-start}
.column{flex:1 0 11em;max-width:18em;display:flex;flex-direction:column;gap:8px;padding:8px;background:var(--surface);border:1px solid var(--border);border-radius:var(--radius)}
.column-stats{display:flex;gap:10px;flex-wrap:wrap;font-size:.8em;color:var(--muted)}.column-stats div{display:flex;gap:4px}
.cards{list-style:none;display:flex;flex-direction:column;gap:6px}
.card{padding:8px;background:var(--bg);border:1px solid var(--border);border-radius:calc(var(--radius) - 2px);display:flex;flex-direction:column;gap:4px}
.card-title{font-weight:500}
.btn{font:inherit;font-weight:500;cursor:pointer;padding:6px 12px;border-radius:calc(var(--radius) - 2px);border:1px solid var(--border);background:var(--surface);color:var(--fg);margin:0;text-transform:none;letter-spacing:normal;box-shadow:none;width:auto;height:auto;line-height:1.3}
.btn.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
.btn.danger{background:var(--danger);border-color:var(--danger);color:#fff}
.btn:disabled{opacity:.6;cursor:progress}
input,select,textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:calc(var(--radius) - 2px);padding:5px 8px;margin:0;max-width:100%}
input[type=checkbox]{width:auto;padding:0}
[aria-invalid=true]{border-color:var(--danger)}
:focus-visible{outline:2px solid var(--accent);outline-offset:1px}
.field{display:flex;flex-direction:column;gap:3px}.field.inline{flex-direction:row;align-items:center;gap:8px}
label{font-weight:500}
.field-error,.form-error{color:var(--danger);font-size:.85em}.field-error:empty,.form-error:empty{display:none}
.group{border:1px dashed var(--border);border-radius:var(--radius);padding:8px;display:flex;flex-direction:column;gap:8px}
.group>.btn{align-self:flex-start}
.group-rows{display:flex;flex-direction:column;gap:8px}.group-row{display:flex;gap:8px;flex-wrap:wrap;align-items:flex-end}
.actions{display:flex;gap:10px;align-items:center}
.filter{display:inline-flex;gap:8px;align-items:center}
.empty{color:var(--muted);padding:12px;text-align:center;border:1px dashed var(--border);border-radius:var(--radius);width:100%}
[hidden]{display:none!important}
.state{display:flex;flex-direction:column;gap:8px;align-items:flex-start;padding:8px}
.error strong{color:var(--danger)}
.spinner{width:16px;height:16px;border:2px solid var(--border);border-top-color:var(--accent);border-radius:50%;animation:spin .8s linear infinite;display:inline-block;vertical-align:middle;margin-inline-end:8px}
@keyframes spin{to{transform:rotate(1turn)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
.notice{color:var(--danger);margin-bottom:8px}.notice:empty{display:none}
[part~=unknown]{color:var(--muted);font-size:.85em;padding:8px;border:1px dashed var(--border);border-radius:var(--radius)}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
`;
