"use client";

import { useEffect, useRef } from "react";

/** A live `<cockpit-widget>` from the real script, created imperatively: React leaves custom elements alone. */
export function WidgetPreview({
  gateway,
  service,
  view,
  authToken,
}: {
  gateway: string;
  service: string;
  view: string;
  authToken: string;
}) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const src = `${gateway}/v1/sdk/sdui-embed.js`;
    if (!document.querySelector(`script[src="${CSS.escape(src)}"]`)) {
      const script = document.createElement("script");
      script.type = "module";
      script.src = src;
      document.head.appendChild(script);
    }
  }, [gateway]);

  useEffect(() => {
    const el = document.createElement("cockpit-widget");
    el.setAttribute("gateway", gateway);
    el.setAttribute("service", service);
    el.setAttribute("view", view);
    el.setAttribute("auth-token", authToken);
    box.current?.replaceChildren(el);
    return () => el.remove();
  }, [gateway, service, view, authToken]);

  return <div ref={box} data-testid="widget-preview" data-service={service} data-view={view} />;
}
