// @ts-check
// Camera filters the hosts can offer guests (event captureFilters): the
// photo is redrawn through a canvas filter and sent as a JPEG. Where the
// browser cannot filter a canvas, the photo goes as it was taken.

/** FILTERS maps each filter name of the spec's captureFilters to a CSS filter. */
export const FILTERS = {
  bw: 'grayscale(1) contrast(1.05)',
  sepia: 'sepia(0.85)',
  vintage: 'sepia(0.35) contrast(0.9) saturate(0.8) brightness(1.05)',
  warm: 'sepia(0.18) saturate(1.25) hue-rotate(-8deg)',
  cool: 'saturate(0.95) hue-rotate(12deg) brightness(1.02)',
  vivid: 'saturate(1.5) contrast(1.1)',
};

// Longest side of a filtered photo: big enough for print, small enough
// for a phone's memory.
const MAX_SIDE = 4096;

/**
 * applyFilter resolves a new JPEG File of the photo through the named
 * filter, or the file itself when the name is unknown, the file is not an
 * image or the browser cannot do it.
 */
export async function applyFilter(file, name) {
  const css = FILTERS[name];
  if (!css || !(file.type || '').startsWith('image/') || !window.createImageBitmap) return file;
  try {
    // createImageBitmap applies the EXIF orientation, so the photo stays upright.
    const bmp = await createImageBitmap(file);
    const scale = Math.min(1, MAX_SIDE / Math.max(bmp.width, bmp.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(bmp.width * scale);
    canvas.height = Math.round(bmp.height * scale);
    const ctx = canvas.getContext('2d');
    ctx.filter = css;
    if (ctx.filter !== css) return file; // canvas filters unsupported
    ctx.drawImage(bmp, 0, 0, canvas.width, canvas.height);
    bmp.close();
    const blob = await new Promise((r) => canvas.toBlob(r, 'image/jpeg', 0.92));
    if (!blob) return file;
    const base = (file.name || 'photo').replace(/\.[^.]*$/, '');
    return new File([blob], `${base}-${name}.jpg`, { type: 'image/jpeg', lastModified: file.lastModified });
  } catch {
    return file;
  }
}
