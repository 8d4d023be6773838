"use client";

import { CopyButton } from "./copy-button";

/**
 * A secret the relayer returns once (new API key, webhook secret). It lives only in this
 * component's state: gone on dismiss or reload, never stored by the browser.
 */
export function SecretOnce({
  title,
  value,
  onDismiss,
}: {
  title: string;
  value: string;
  onDismiss: () => void;
}) {
  return (
    <div className="secret-once" role="region" aria-label={title}>
      <p className="secret-title">{title}</p>
      <p className="secret-hint">
        Copy it now: it is shown only once and cannot be retrieved later.
      </p>
      <div className="secret-row">
        <code className="secret-value" data-testid="secret-value">
          {value}
        </code>
        <CopyButton value={value} />
      </div>
      <button type="button" className="button button-small" onClick={onDismiss}>
        I have stored it
      </button>
    </div>
  );
}
