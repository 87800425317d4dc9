'use client';
// Copies one line (the /mcp URL, a command, a settings entry) to the clipboard. Where the browser has
// no clipboard for the page (the Clipboard API needs a secure context and may be refused), it selects
// the text on the page instead, so the person copies it with their own keys. A live region says which
// happened. Without JavaScript there is no button: the text is on the page to select.
import { useEffect, useRef, useState } from 'react';
import { buttonClass } from './confirm-dialog';

export function CopyButton({
  text,
  targetId,
  label,
}: {
  text: string /** The element that shows `text`, selected when copying fails. */;
  targetId: string /** What is copied, for screen readers: "the MCP URL". */;
  label: string;
}) {
  const [enhanced, setEnhanced] = useState(false);
  const [status, setStatus] = useState('');
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => {
    setEnhanced(true);
    return () => {
      for (const timer of timers.current) clearTimeout(timer);
    };
  }, []);

  function announce(message: string) {
    for (const timer of timers.current) clearTimeout(timer);
    // Emptied first, so that the same message after a second press is announced again.
    setStatus('');
    timers.current = [setTimeout(() => setStatus(message), 50), setTimeout(() => setStatus(''), 8000)];
  }

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard on this page');
      await navigator.clipboard.writeText(text);
      announce('Copied');
    } catch {
      const target = document.getElementById(targetId);
      const selection = window.getSelection();
      if (!target || !selection) {
        announce('Could not copy: select the text and copy it');
        return;
      }
      const range = document.createRange();
      range.selectNodeContents(target);
      selection.removeAllRanges();
      selection.addRange(range);
      announce('Selected: press Ctrl+C (⌘C on a Mac) to copy');
    }
  }

  return (
    <span className="inline-flex shrink-0 items-center gap-2">
      {enhanced ? (
        <button type="button" onClick={() => void copy()} className={buttonClass('secondary', 'sm')}>
          Copy<span className="sr-only"> {label}</span>
        </button>
      ) : null}
      <span role="status" aria-live="polite" className="text-xs text-slate-600">
        {status}
      </span>
    </span>
  );
}
