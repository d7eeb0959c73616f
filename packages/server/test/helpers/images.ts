import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';

/** Test images generated with sharp: licence-clear, deterministic, safe. */
export async function photo(
  format: 'jpeg' | 'png' | 'webp' | 'gif' = 'jpeg',
  width = 320,
  height = 240,
): Promise<Buffer> {
  const base = sharp({
    create: { width, height, channels: 3, background: { r: 90, g: 140, b: 200 } },
  }).composite([
    {
      input: Buffer.from(
        `<svg width="${width}" height="${height}"><circle cx="${width / 3}" cy="${height / 2}" r="${height / 3}" fill="#e0a050"/><rect x="${width / 2}" y="${height / 4}" width="${width / 3}" height="${height / 2}" fill="#305030"/></svg>`,
      ),
    },
  ]);
  return base.toFormat(format).toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid PNG header claiming width × height pixels, with a tiny IDAT: a decompression bomb's calling card. */
export function pngBombHeader(width = 50_000, height = 50_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const idat = zlib.deflateSync(Buffer.alloc(1024));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
);
export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

export const dataUri = (bytes: Buffer, type = 'image/jpeg') =>
  `data:${type};base64,${bytes.toString('base64')}`;

export interface TestServer {
  url: string;
  port: number;
  /** Requests received, by path. */
  hits: Map<string, number>;
  total(): number;
  close(): Promise<void>;
}

/** A real HTTP(S) server on a loopback address that counts every request it receives. */
export async function serve(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  options: { host?: string; tls?: { key: string; cert: string } } = {},
): Promise<TestServer> {
  const host = options.host ?? '127.0.0.1';
  const hits = new Map<string, number>();
  const counted = (req: http.IncomingMessage, res: http.ServerResponse) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    handler(req, res);
  };
  const server: http.Server = options.tls
    ? (await import('node:https')).createServer(options.tls, counted)
    : http.createServer(counted);
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket: import('node:net').Socket) => {
    hits.set('<connection>', (hits.get('<connection>') ?? 0) + 1);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A "meme": a photo-like texture (smooth random noise) with a caption in white letters outlined in black, which the
 * service reads (OCR) and judges as text; `null` gives the plain texture, with nothing to read.
 */
export async function meme(
  caption: string | null,
  width = 640,
  height = 480,
  font = 'DejaVu Sans',
): Promise<Buffer> {
  const texture = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 120, sigma: 50 },
    },
  })
    .blur(3)
    .png()
    .toBuffer();
  if (caption === null) return sharp(texture).jpeg().toBuffer();
  const svg = `<svg width="${width}" height="${height}"><text x="${width / 2}" y="90" font-family="${font}" font-weight="bold" font-size="54" fill="white" stroke="black" stroke-width="3" text-anchor="middle">${caption}</text></svg>`;
  return sharp(texture)
    .composite([{ input: Buffer.from(svg) }])
    .jpeg()
    .toBuffer();
}
