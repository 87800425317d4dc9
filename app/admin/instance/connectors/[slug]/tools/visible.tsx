// Untrusted upstream text on the review page: rendered as text only, each hidden character written out
// as a marked ⟨U+XXXX⟩ (lib/connectors/visible-text.ts), long lines wrapped.
import type { DiffLine } from '@/lib/connectors/definition-diff';
import { visibleParts } from '@/lib/connectors/visible-text';

export function VisibleText({ text }: { text: string }) {
  return (
    <>
      {visibleParts(text).map((part, index) =>
        part.hidden ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, in order
          <mark key={index} data-hidden-character className="rounded bg-red-100 px-0.5 font-mono text-red-900">
            {part.text}
          </mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text, in order
          <span key={index}>{part.text}</span>
        ),
      )}
    </>
  );
}

/** A field's lines, the changed ones marked (and named for screen readers). */
export function DiffLines({ lines, side }: { lines: DiffLine[]; side: 'before' | 'after' }) {
  const tone = side === 'before' ? 'bg-red-50 border-red-400' : 'bg-green-50 border-green-500';
  return (
    <pre className="rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs break-words whitespace-pre-wrap [overflow-wrap:anywhere]">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one fixed text, in order
        <span key={index} data-changed={line.changed || undefined} className={`block border-l-4 pl-1 ${line.changed ? tone : 'border-transparent'}`}>
          {line.changed ? <span className="sr-only">{side === 'before' ? 'Removed: ' : 'Added: '}</span> : null}
          <VisibleText text={line.text} />
          {line.text === '' ? '\u00a0' : null}
        </span>
      ))}
    </pre>
  );
}
