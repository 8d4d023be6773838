"use client";

import { useState } from "react";

/** Copies `value` to the clipboard and says so for a moment. */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
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
  return (
    <button type="button" className="button button-small" onClick={() => void copy()}>
      {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed: select it" : label}
    </button>
  );
}
