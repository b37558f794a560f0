// Package s3store talks to an S3-compatible bucket (AWS S3, Backblaze B2,
// Wasabi, Cloudflare R2, MinIO, SeaweedFS, Ceph, Garage) for the cloud
// export: it checks the settings (write, read back, delete one object),
// lists the objects under a prefix, puts an object in one request or, when
// large, as a multipart upload that resumes from the parts the store has
// already, and presigns a link.
//
// It wraps the core API of github.com/minio/minio-go/v7
// (docs/decisions/background.md, "Cloud export to S3"), whose
// NewMultipartUpload, PutObjectPart, ListObjectParts and
// CompleteMultipartUpload let the caller keep the upload id and resume. Every
// part and object is sent with its Content-MD5 and its signed SHA-256, which
// the store checks before it keeps the bytes. The transport under the
// client bounds what the box reads from the server, as the webdav package
// does: an error's body is cut at 4 KiB, a listing's at MaxListing, any
// other at MaxObjectBody, and a redirect is refused, never followed.
package s3store

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"eventbox/internal/stallnet"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Settings say which bucket to write to.
type Settings struct {
	// Endpoint is the server's address: https://s3.eu-west-1.amazonaws.com,
	// http://192.168.1.20:9000; a bare host means https.
	Endpoint string
	// Region is the bucket's region; "" means us-east-1, which the
	// servers without regions take.
	Region    string
	Bucket    string
	AccessKey string
	Secret    string
	// PathStyle puts the bucket in the path (https://host/bucket/key)
	// instead of the host name (https://bucket.host/key).
	PathStyle bool
}

// Config holds what New needs besides the settings.
type Config struct {
	// Transport makes the requests; nil means a clone of
	// http.DefaultTransport whose connections fail after StallTimeout
	// without progress.
	Transport http.RoundTripper
	// Timeout bounds a request that carries no object (listing, delete,
	// completing an upload); zero means one minute.
	Timeout time.Duration
	// MaxListing caps the body of one listing answer; zero means
	// MaxListingBytes.
	MaxListing int64
	// PartSize is the size of a multipart upload's parts, and the size
	// from which an object is sent in parts; zero means PartSize. The
	// stores take no part under 5 MiB but the last.
	PartSize int64
}

// MaxListingBytes caps the body of one listing answer (a page of at most
// 1,000 keys takes about 350 KiB; each key read takes about 2 KiB while
// the page is decoded, so a page cut at 1 MiB stays within tens of MiB).
const MaxListingBytes = 1 << 20

// MaxListedKeys is how many objects a listing reads in all before it
// fails: ten times what a large event's folder holds. A server whose listing
// never ends fails there instead of filling the box's memory.
const MaxListedKeys = 50_000

// PartSize is the default size of a multipart upload's parts. A part is
// read from the card twice (its checksums, then the upload), never kept
// in memory.
const PartSize = 16 << 20

// StallTimeout cuts a connection on which nothing could be written or read
// for that long.
const StallTimeout = 2 * time.Minute

// MaxErrorBody is how much of an error answer's body is read: enough for
// the store's XML explanation.
const MaxErrorBody = 4 << 10

// Object is an object in the bucket.
type Object struct {
	Size int64
	ETag string
}

// Bucket is an S3-compatible bucket. It is used by one goroutine at a
// time.
type Bucket struct {
	core     minio.Core
	bucket   string
	partSize int64
	rt       *boundTransport
}

// SetupError is a setting that cannot work, found before any request.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// New returns a Bucket for s. Each call's context bounds its requests.
func New(s Settings, cfg Config) (*Bucket, error) {
	raw := strings.TrimSpace(s.Endpoint)
	if raw != "" && !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
		return nil, &SetupError{Msg: "the endpoint must be an address such as https://s3.example.com, without a path"}
	}
	if strings.TrimSpace(s.Bucket) == "" {
		return nil, &SetupError{Msg: "the bucket is missing"}
	}
	if s.AccessKey == "" || s.Secret == "" {
		return nil, &SetupError{Msg: "the access key and the secret key are both needed"}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.MaxListing <= 0 {
		cfg.MaxListing = MaxListingBytes
	}
	if cfg.PartSize <= 0 {
		cfg.PartSize = PartSize
	}
	base := cfg.Transport
	if base == nil {
		base = stallnet.Transport(StallTimeout)
	}
	rt := &boundTransport{base: base, timeout: cfg.Timeout, maxListing: cfg.MaxListing}
	region := s.Region
	if region == "" {
		region = "us-east-1"
	}
	lookup := minio.BucketLookupDNS
	if s.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.NewCore(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(s.AccessKey, s.Secret, ""),
		Secure:       u.Scheme == "https",
		Transport:    rt,
		Region:       region,
		BucketLookup: lookup,
		// The export's job retries; a retry inside the client would send
		// a part twice.
		MaxRetries: 1,
	})
	if err != nil {
		return nil, &SetupError{Msg: "the endpoint is not usable: " + err.Error()}
	}
	c.SetAppInfo("eventbox", "1")
	return &Bucket{core: *c, bucket: s.Bucket, partSize: cfg.PartSize, rt: rt}, nil
}

// Error is a failed step, with the store's words when it answered.
type Error struct {
	// Op says what was being done ("writing a test object").
	Op string
	// Status is the HTTP status of a refusal; 0 when the store did not
	// answer (network, TLS, DNS).
	Status int
	// Code is the store's error code (AccessDenied, NoSuchBucket, …).
	Code string
	// Words is what the store said, or the network error.
	Words string
	Err   error
}

func (e *Error) Error() string { return e.Op + ": " + e.Words }
func (e *Error) Unwrap() error { return e.Err }

// Permanent reports whether retrying cannot help: the store refused the
// keys or the request, the bucket does not exist, the certificate is not
// valid, or the store redirected. A full store, a slow one or the network
// can change by themselves.
func (e *Error) Permanent() bool {
	switch e.Code {
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "NoSuchBucket",
		"InvalidBucketName", "AuthorizationHeaderMalformed", "PermanentRedirect":
		return true
	}
	switch e.Status {
	case 400, 401, 403, 405, 501:
		return true
	}
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var redirect *RedirectError
	return errors.As(e.Err, &redirect) || errors.As(e.Err, &cert) || errors.As(e.Err, &unknown) || errors.As(e.Err, &host)
}

// wrap turns a client error into an Error saying op.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var own *Error
	if errors.As(err, &own) {
		return err
	}
	e := &Error{Op: op, Err: err}
	var redirect *RedirectError
	if errors.As(err, &redirect) {
		e.Status, e.Words = redirect.Status, redirect.Error()
		return e
	}
	var over *tooLargeError
	if errors.As(err, &over) {
		e.Words = over.Error()
		return e
	}
	if r := minio.ToErrorResponse(err); r.StatusCode != 0 || r.Code != "" {
		e.Status, e.Code = r.StatusCode, r.Code
		e.Words = strings.TrimSpace(fmt.Sprintf("%d %s", r.StatusCode, http.StatusText(r.StatusCode)))
		if r.StatusCode == 0 {
			e.Words = ""
		}
		msg := strings.TrimSpace(r.Message)
		if strings.HasPrefix(msg, "<") {
			msg = "" // a body that is no S3 error (cut, or an HTML page): its status says it
		}
		if len(msg) > 200 {
			msg = msg[:200]
		}
		if r.Code != "" && !strings.Contains(r.Code, " ") {
			e.Words = strings.TrimSpace(e.Words + " " + r.Code)
		}
		if msg != "" {
			e.Words += ": " + msg
		}
		switch r.Code {
		case "InvalidAccessKeyId", "SignatureDoesNotMatch":
			e.Words += " (wrong access key or secret?)"
		case "NoSuchBucket":
			e.Words += " (is the bucket's name right, and path-style addressing as the store wants?)"
		}
		return e
	}
	e.Words = networkWords(err)
	return e
}

// networkWords says a transport failure plainly.
func networkWords(err error) string {
	if w := stallnet.Words(err); w != "" {
		return w
	}
	return err.Error()
}

// Key joins a prefix and names into an object key: slash-separated, with
// no empty, "." or ".." segment.
func Key(parts ...string) string {
	var out []string
	for _, p := range parts {
		for _, seg := range strings.Split(p, "/") {
			if seg != "" && seg != "." && seg != ".." {
				out = append(out, seg)
			}
		}
	}
	return strings.Join(out, "/")
}

// List answers the objects whose keys start with prefix + "/", by their
// key after it (names in sub-folders keep their folder: "voice/a.m4a").
// It fails past MaxListedKeys objects, or on a listing that does not move
// on.
func (b *Bucket) List(ctx context.Context, prefix string) (map[string]Object, error) {
	prefix = Key(prefix) + "/"
	out := map[string]Object{}
	token := ""
	for {
		res, err := b.core.ListObjectsV2(b.bucket, prefix, "", token, "", 1000)
		if err != nil {
			return nil, wrap("listing "+prefix, err)
		}
		for _, o := range res.Contents {
			name, ok := strings.CutPrefix(o.Key, prefix)
			if !ok || name == "" {
				continue
			}
			out[name] = Object{Size: o.Size, ETag: strings.Trim(o.ETag, `"`)}
		}
		if len(out) > MaxListedKeys {
			return nil, &Error{Op: "listing " + prefix, Words: fmt.Sprintf("the store lists more than %d objects", MaxListedKeys)}
		}
		if !res.IsTruncated {
			return out, nil
		}
		if res.NextContinuationToken == "" || res.NextContinuationToken == token || len(res.Contents) == 0 {
			return nil, &Error{Op: "listing " + prefix, Words: "the store's listing does not move on"}
		}
		token = res.NextContinuationToken
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// sums answers the Content-MD5 (base64) and the SHA-256 (hex) of size
// bytes of r from off, read once through a small buffer.
func sums(r io.ReaderAt, off, size int64) (md5b64, sha256hex string, err error) {
	m, s := md5.New(), sha256.New()
	if _, err := io.Copy(io.MultiWriter(m, s), io.NewSectionReader(r, off, size)); err != nil {
		return "", "", fmt.Errorf("reading the data to send: %w", err)
	}
	return base64.StdEncoding.EncodeToString(m.Sum(nil)), hex.EncodeToString(s.Sum(nil)), nil
}

// body is a part of a file as a request body: seekable (the client can
// send it again after a failed connection without a copy) and cut as soon
// as ctx ends.
type body struct {
	ctx context.Context
	*io.SectionReader
}

func (u body) Read(p []byte) (int, error) {
	if err := u.ctx.Err(); err != nil {
		return 0, err
	}
	return u.SectionReader.Read(p)
}

// Put sends size bytes of r as the object key in one request, with its
// Content-MD5 and signed SHA-256, which the store checks.
func (b *Bucket) Put(ctx context.Context, key string, r io.ReaderAt, size int64, contentType string) (Object, error) {
	md5b64, sha, err := sums(r, 0, size)
	if err != nil {
		return Object{}, err
	}
	info, err := b.core.PutObject(ctx, b.bucket, key, body{ctx, io.NewSectionReader(r, 0, size)}, size, md5b64, sha,
		minio.PutObjectOptions{ContentType: contentType, DisableContentSha256: true})
	if err != nil {
		return Object{}, wrap("sending "+path.Base(key), err)
	}
	return Object{Size: size, ETag: strings.Trim(info.ETag, `"`)}, nil
}

// Upload is a multipart upload under way: what its caller keeps (in the
// export job's record) before any part is sent, so that the next attempt,
// after a power cut or a restart, resumes it from the parts the store has.
type Upload struct {
	Key      string `json:"key"`
	ID       string `json:"id"`
	Size     int64  `json:"size"`
	PartSize int64  `json:"partSize"`
}

// Large reports whether an object of size is sent in parts.
func (b *Bucket) Large(size int64) bool { return size > b.partSize }

// PutParts sends size bytes of r as the object key in parts. When resume
// is an upload of the same key and size, it asks the store which parts it
// has and sends only the others (a part whose size or MD5 differs is sent
// again); otherwise it starts an upload and hands it to keep before the
// first part is sent. Each part goes with its Content-MD5 and signed
// SHA-256. sent, when not nil, is told of each part sent.
func (b *Bucket) PutParts(ctx context.Context, key string, r io.ReaderAt, size int64, contentType string,
	resume Upload, keep func(Upload) error) (Object, error) {
	name := path.Base(key)
	up := resume
	var have map[int]minio.ObjectPart
	if up.ID != "" && up.Key == key && up.Size == size && up.PartSize > 0 {
		parts, err := b.listParts(ctx, up)
		var er minio.ErrorResponse
		if errors.As(err, &er) && er.Code == "NoSuchUpload" {
			up.ID = "" // completed or aborted meanwhile: start again
		} else if err != nil {
			return Object{}, wrap("listing the parts of "+name+" already sent", err)
		}
		have = parts
	} else {
		up.ID = ""
	}
	if up.ID == "" {
		id, err := b.core.NewMultipartUpload(ctx, b.bucket, key, minio.PutObjectOptions{ContentType: contentType})
		if err != nil {
			return Object{}, wrap("starting the upload of "+name, err)
		}
		up = Upload{Key: key, ID: id, Size: size, PartSize: b.partSize}
		if err := keep(up); err != nil {
			return Object{}, err
		}
		have = nil
	}
	count := int((size + up.PartSize - 1) / up.PartSize)
	if count == 0 {
		count = 1
	}
	var done []minio.CompletePart
	for n := 1; n <= count; n++ {
		off := int64(n-1) * up.PartSize
		psize := min(up.PartSize, size-off)
		md5b64, sha, err := sums(r, off, psize)
		if err != nil {
			return Object{}, err
		}
		if p, ok := have[n]; ok && p.Size == psize && samePartETag(p.ETag, md5b64) {
			done = append(done, minio.CompletePart{PartNumber: n, ETag: p.ETag})
			continue
		}
		p, err := b.core.PutObjectPart(ctx, b.bucket, key, up.ID, n, body{ctx, io.NewSectionReader(r, off, psize)}, psize,
			minio.PutObjectPartOptions{Md5Base64: md5b64, Sha256Hex: sha, DisableContentSha256: true})
		if err != nil {
			return Object{}, wrap(fmt.Sprintf("sending part %d of %d of %s", n, count, name), err)
		}
		done = append(done, minio.CompletePart{PartNumber: n, ETag: p.ETag})
	}
	info, err := b.core.CompleteMultipartUpload(ctx, b.bucket, key, up.ID, done, minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return Object{}, wrap("completing the upload of "+name, err)
	}
	return Object{Size: size, ETag: strings.Trim(info.ETag, `"`)}, nil
}

// samePartETag reports whether a listed part's ETag is the MD5 of the
// part (a plain S3 ETag); a store whose part ETags are something else has
// its parts sent again.
func samePartETag(etag, md5b64 string) bool {
	sum, err := base64.StdEncoding.DecodeString(md5b64)
	return err == nil && strings.EqualFold(strings.Trim(etag, `"`), hex.EncodeToString(sum))
}

// listParts answers the parts the store has of the upload, by number; it
// reads at most as many pages as the upload has parts.
func (b *Bucket) listParts(ctx context.Context, up Upload) (map[int]minio.ObjectPart, error) {
	count := int(up.Size/up.PartSize) + 1
	out := map[int]minio.ObjectPart{}
	marker := 0
	for range count + 1 {
		res, err := b.core.ListObjectParts(ctx, b.bucket, up.Key, up.ID, marker, 1000)
		if err != nil {
			return nil, err
		}
		for _, p := range res.ObjectParts {
			if p.PartNumber >= 1 && p.PartNumber <= count {
				out[p.PartNumber] = p
			}
		}
		if !res.IsTruncated {
			return out, nil
		}
		if res.NextPartNumberMarker <= marker {
			return nil, &Error{Op: "listing the parts sent", Words: "the store's listing does not move on"}
		}
		marker = res.NextPartNumberMarker
	}
	return nil, &Error{Op: "listing the parts sent", Words: "the store lists more parts than the upload has"}
}

// Get answers the object's bytes, at most max of them: an object larger
// than max fails.
func (b *Bucket) Get(ctx context.Context, key string, max int64) ([]byte, error) {
	rc, _, _, err := b.core.GetObject(ctx, b.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, wrap("reading "+path.Base(key), err)
	}
	defer rc.Close()
	got, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, wrap("reading "+path.Base(key), err)
	}
	if int64(len(got)) > max {
		return nil, &Error{Op: "reading " + path.Base(key), Words: fmt.Sprintf("the object is larger than %d bytes", max)}
	}
	return got, nil
}

// Delete removes the object.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	return wrap("removing "+path.Base(key), b.core.RemoveObject(ctx, b.bucket, key, minio.RemoveObjectOptions{}))
}

// TestName is the name of the settings test's object, in the prefix.
const TestName = ".eventbox-test.txt"

// Test steps, as Test reports them (Error.Op).
const (
	StepWrite  = "writing a test object"
	StepRead   = "reading the test object back"
	StepDelete = "removing the test object"
)

// Test writes one small object under prefix, reads it back and removes
// it; the error says which of the three steps failed (Error.Op: StepWrite,
// StepRead, StepDelete).
func (b *Bucket) Test(ctx context.Context, prefix string) error {
	key := Key(prefix, TestName)
	want := []byte("eventbox can write here. This object removes itself.\n")
	if _, err := b.Put(ctx, key, bytes.NewReader(want), int64(len(want)), "text/plain; charset=utf-8"); err != nil {
		return step(StepWrite, err)
	}
	got, err := b.Get(ctx, key, int64(len(want)))
	if err != nil {
		return step(StepRead, err)
	}
	if !bytes.Equal(got, want) {
		return &Error{Op: StepRead, Words: "the store gave back other bytes than were written"}
	}
	if err := b.Delete(ctx, key); err != nil {
		return step(StepDelete, err)
	}
	return nil
}

// step names the test's step in err.
func step(op string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Op = op
		return &c
	}
	return &Error{Op: op, Words: err.Error(), Err: err}
}

// MaxPresign is the longest a presigned link lives (S3's limit).
const MaxPresign = 7 * 24 * time.Hour

// Presign answers a link that reads the object without keys for d (at
// most MaxPresign). It needs no request.
func (b *Bucket) Presign(ctx context.Context, key string, d time.Duration) (string, error) {
	d = min(d, MaxPresign)
	u, err := b.core.PresignedGetObject(ctx, b.bucket, key, d, nil)
	if err != nil {
		return "", wrap("making a link to "+path.Base(key), err)
	}
	return u.String(), nil
}
