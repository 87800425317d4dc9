'use client';
// One tab per MCP client, after the WAI-ARIA Authoring Practices tabs pattern (automatic activation):
// the arrow keys move between tabs, Home and End go to the first and last, and only the selected tab
// is in the Tab order. Until the script runs (or without JavaScript) every client's instructions are
// shown one after the other, each under its heading: nothing depends on the script.
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export type ConnectPanel = { id: string; tab: string; heading: string; body: ReactNode };

export function ConnectTabs({ label, panels }: { label: string; panels: ConnectPanel[] }) {
  const [enhanced, setEnhanced] = useState(false);
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  useEffect(() => setEnhanced(true), []);

  if (!enhanced) {
    return (
      <div className="space-y-4">
        {panels.map((panel) => (
          <section key={panel.id} aria-labelledby={`connect-heading-${panel.id}`} className="space-y-2 border-t border-slate-200 pt-3">
            <h3 id={`connect-heading-${panel.id}`} className="font-semibold">
              {panel.heading}
            </h3>
            {panel.body}
          </section>
        ))}
      </div>
    );
  }

  function select(index: number) {
    const next = (index + panels.length) % panels.length;
    setSelected(next);
    tabs.current[next]?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>) {
    const moves: Record<string, number> = { ArrowRight: selected + 1, ArrowLeft: selected - 1, Home: 0, End: panels.length - 1 };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    select(target);
  }

  return (
    <div>
      <div role="tablist" aria-label={label} className="flex flex-wrap gap-1 border-b border-slate-200">
        {panels.map((panel, index) => (
          <button
            key={panel.id}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`connect-tab-${panel.id}`}
            aria-selected={index === selected}
            aria-controls={`connect-panel-${panel.id}`}
            tabIndex={index === selected ? 0 : -1}
            onClick={() => setSelected(index)}
            onKeyDown={onKeyDown}
            className={`-mb-px rounded-t border-b-2 px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-brand ${
              index === selected ? 'border-brand text-brand' : 'border-transparent text-slate-600 hover:text-slate-900'
            }`}
          >
            {panel.tab}
          </button>
        ))}
      </div>
      {panels.map((panel, index) => (
        <div
          key={panel.id}
          role="tabpanel"
          id={`connect-panel-${panel.id}`}
          aria-labelledby={`connect-tab-${panel.id}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a tab panel whose first content is not focusable is itself in the Tab order (WAI-ARIA APG, tabs pattern)
          tabIndex={0}
          hidden={index !== selected}
          className="space-y-2 rounded-b pt-3 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand"
        >
          <h3 className="font-semibold">{panel.heading}</h3>
          {panel.body}
        </div>
      ))}
    </div>
  );
}
