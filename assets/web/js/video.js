// @ts-check
// Video uploads: the browser makes the JPEG poster frame, and the body is
// the poster followed by the video (spec: "POST /api/e/:slug/photos" with
// Content-Type application/vnd.service.video and X-Poster-Bytes).

/** VIDEO_TYPE is the content type of a video upload body. */
export const VIDEO_TYPE = 'application/vnd.service.video';

function once(el, ok, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { cleanup(); reject(new Error('timed out waiting for ' + ok)); }, ms);
    const good = () => { cleanup(); resolve(); };
    const bad = () => { cleanup(); reject(new Error('the video cannot be read')); };
    const cleanup = () => {
      clearTimeout(timer);
      el.removeEventListener(ok, good);
      el.removeEventListener('error', bad);
    };
    el.addEventListener(ok, good);
    el.addEventListener('error', bad);
  });
}

/**
 * makePoster draws a frame of the video (half a second in, or its middle
 * when shorter) into a JPEG at most maxSide pixels on its longest side.
 * It resolves { poster: Blob, width, height, durationMs } and rejects
 * when the browser cannot decode the video.
 */
export async function makePoster(file, maxSide = 1280) {
  const url = URL.createObjectURL(file);
  const v = document.createElement('video');
  v.muted = true;
  v.playsInline = true;
  v.preload = 'auto';
  try {
    v.src = url;
    await once(v, 'loadeddata', 20000);
    const d = Number.isFinite(v.duration) ? v.duration : 0;
    const at = Math.min(0.5, d / 2);
    if (at > 0.05) {
      v.currentTime = at;
      await once(v, 'seeked', 10000);
    }
    const scale = Math.min(1, maxSide / Math.max(v.videoWidth, v.videoHeight));
    const w = Math.max(1, Math.round(v.videoWidth * scale));
    const hh = Math.max(1, Math.round(v.videoHeight * scale));
    const canvas = document.createElement('canvas');
    canvas.width = w;
    canvas.height = hh;
    canvas.getContext('2d').drawImage(v, 0, 0, w, hh);
    const poster = await new Promise((res, rej) => canvas.toBlob((b) => (b ? res(b) : rej(new Error('no poster'))), 'image/jpeg', 0.85));
    return { poster, width: w, height: hh, durationMs: Math.round(d * 1000) };
  } finally {
    v.removeAttribute('src');
    v.load();
    URL.revokeObjectURL(url);
  }
}

/** videoBody joins the poster and the video into one upload body. */
export const videoBody = (poster, file) => new Blob([poster, file], { type: VIDEO_TYPE });
