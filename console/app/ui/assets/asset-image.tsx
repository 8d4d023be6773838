"use client";

import { useState } from "react";
import { imageSource } from "../../lib/format";

/**
 * A token's image from its metadata, inside a fixed-size box: an `<img>` only (an SVG shown this
 * way runs no script and loads nothing), scaled to fit whatever its declared size, loaded lazily
 * with no referrer. A missing, refused (CSP) or broken image shows the placeholder instead.
 */
export function AssetImage({
  image,
  name,
  size = "card",
}: {
  image: string | null;
  name: string;
  size?: "card" | "large";
}) {
  const [failed, setFailed] = useState(false);
  const src = imageSource(image);
  return (
    <div className={`asset-image asset-image-${size}`}>
      {src === undefined || failed ? (
        <div
          className="asset-placeholder"
          role="img"
          aria-label={`No image for ${name}`}
          data-testid="image-placeholder"
        >
          <span aria-hidden="true">◇</span>
          <span className="muted">{src === undefined ? "No image" : "Image unavailable"}</span>
        </div>
      ) : (
        <img
          src={src}
          alt={name}
          loading="lazy"
          decoding="async"
          referrerPolicy="no-referrer"
          onError={() => setFailed(true)}
          data-testid="asset-image"
        />
      )}
    </div>
  );
}
