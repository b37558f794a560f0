// One upload with the official tus client (tus-js-client, installed here by
// `make tusjs`), for daemon/scenarios/resumable_tusjs_test.go. The one argument is
// JSON: endpoint, file, metadata, headers, retryDelays and, to resume an
// upload the box already holds part of, uploadUrl. It prints one JSON line
// per event: {"url"} once the box named the upload, then {"done", "result",
// "status"} or {"error"} (exit status 3).
'use strict';
const fs = require('fs');
const tus = require('tus-js-client');

const a = JSON.parse(process.argv[2]);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const upload = new tus.Upload(fs.readFileSync(a.file), {
  endpoint: a.endpoint,
  uploadUrl: a.uploadUrl || null,
  metadata: a.metadata,
  headers: a.headers,
  retryDelays: a.retryDelays,
  storeFingerprintForResuming: false,
  onUploadUrlAvailable() { say({ url: upload.url }); },
  onError(err) { say({ error: String(err) }); process.exitCode = 3; },
  onSuccess(p) {
    const r = p && p.lastResponse;
    say({ done: upload.url, result: r ? r.getHeader('Upload-Result') : '', status: r ? r.getHeader('Upload-Result-Status') : '' });
  },
});
upload.start();
