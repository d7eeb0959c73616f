/**
 * Warnings for content that is plainly not what its `contentType` says: a base64 image or a data URI sent as text is
 * still scored as text (the request is valid), but a text score of base64 says nothing about the image, so the
 * result says so instead of leaving the caller to believe the image was judged.
 */
export interface ContentWarning {
  code: 'CONTENT_LOOKS_LIKE_DATA_URI' | 'CONTENT_LOOKS_LIKE_BASE64_MEDIA';
  message: string;
  field: string;
}

const DATA_URI = /^\s*data:([a-z]+\/[a-z0-9.+-]+)?(?:;[a-z0-9=.+-]+)*;base64,/i;
/** Only base64 characters (line breaks allowed), padded; at least 64 of them. */
const BASE64 = /^[A-Za-z0-9+/]{64,}(?:[\r\n]+[A-Za-z0-9+/]+)*={0,2}\s*$/;

/** File signatures of the media a caller could mean, read from the first bytes. */
function mediaKind(bytes: Buffer): string | null {
  const hex = bytes.toString('hex');
  if (hex.startsWith('ffd8ff')) return 'JPEG image';
  if (hex.startsWith('89504e470d0a1a0a')) return 'PNG image';
  if (hex.startsWith('47494638')) return 'GIF image';
  if (hex.startsWith('52494646') && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'WebP image';
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return 'MP4/QuickTime video';
  if (hex.startsWith('1a45dfa3')) return 'WebM/Matroska video';
  return null;
}

/** The warnings of a text about to be scored as text; empty for ordinary text. */
export function textWarnings(text: string, field = 'content'): ContentWarning[] {
  const uri = DATA_URI.exec(text);
  if (uri) {
    const type = uri[1] ?? 'unknown type';
    return [
      {
        code: 'CONTENT_LOOKS_LIKE_DATA_URI',
        field,
        message: `${field} is a data URI (${type}) but was scored as text; send contentType "image" (or "video" by URL) to judge the media itself`,
      },
    ];
  }
  const head = text.trimStart();
  if (head.length < 64 || !BASE64.test(head)) return [];
  const kind = mediaKind(Buffer.from(head.slice(0, 24), 'base64'));
  if (!kind) return [];
  return [
    {
      code: 'CONTENT_LOOKS_LIKE_BASE64_MEDIA',
      field,
      message: `${field} looks like a base64 ${kind} but was scored as text; send contentType "image" to judge an image`,
    },
  ];
}
