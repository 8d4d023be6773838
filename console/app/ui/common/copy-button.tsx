"use client";

import { useState } from "react";

/**
 * Copies `value` to the clipboard and says so for a moment. `compact` is the small icon-like
 * button of table cells; its accessible name still says what it copies.
 */
export function CopyButton({
  value,
  label = "Copy",
  compact = false,
}: {
  value: string;
  label?: string;
  compact?: boolean;
}) {
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("copied");
    } catch {
      // No clipboard permission (e.g. plain http on another host): the value is on screen.
      setCopied("failed");
    }
    setTimeout(() => setCopied("idle"), 2000);
  };
  const text =
    copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed: select it" : label;
  return (
    <button
      type="button"
      className={`button button-small${compact ? " button-copy" : ""}`}
      onClick={() => void copy()}
      aria-label={compact ? `${text} ${value}` : undefined}
      title={compact ? value : undefined}
    >
      {text}
    </button>
  );
}
