import { useMemo } from 'react';
import { create } from 'qrcode';

/** Quiet zone around the symbol, in modules (the QR standard asks for 4). */
const MARGIN = 4;

/**
 * A QR code drawn as one SVG path from the symbol's modules (no markup strings).
 * Error correction level H by default; the version follows from the text.
 */
export function QrCode({ text, label, size = 220 }: { text: string; label: string; size?: number }) {
  const symbol = useMemo(() => {
    const qr = create(text, { errorCorrectionLevel: 'H' });
    const { size: modules, data } = qr.modules;
    let path = '';
    for (let row = 0; row < modules; row += 1) {
      for (let col = 0; col < modules; col += 1) {
        if (data[row * modules + col]) path += `M${col + MARGIN} ${row + MARGIN}h1v1h-1z`;
      }
    }
    return { path, extent: modules + MARGIN * 2, version: qr.version };
  }, [text]);

  return (
    <svg
      className="qr-code"
      role="img"
      aria-label={label}
      data-testid="qr-code"
      data-qr-level="H"
      data-qr-version={symbol.version}
      data-qr-text={text}
      width={size}
      height={size}
      viewBox={`0 0 ${symbol.extent} ${symbol.extent}`}
      shapeRendering="crispEdges"
    >
      <rect width={symbol.extent} height={symbol.extent} fill="#ffffff" />
      <path d={symbol.path} fill="#000000" />
    </svg>
  );
}
