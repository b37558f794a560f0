package cloudexport

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"path"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/s3store"
	"eventbox/store"
	"eventbox/webdav"
)

// target is where an export's files go: a folder of a WebDAV server or a
// prefix of an S3-compatible bucket. The export's logic (what is sent,
// what is there already, progress, retries) is the same over both.
type target interface {
	// prepare makes the export's folder where the target has folders.
	prepare(ctx context.Context, folder string) error
	// list answers the files in dir by name ("" when dir is not there).
	list(ctx context.Context, dir string) (map[string]remoteFile, error)
	// put sends size bytes of r as dir/name, whole or not at all, and
	// answers the file as the target has it.
	put(ctx context.Context, dir, name string, r io.ReaderAt, size int64) (remoteFile, error)
	// parallel is how many files put may send at once.
	parallel() int
}

// davParallel is how many files an export sends to a WebDAV server at
// once: rclone copy's default (--transfers 4). One at a time, the server's
// and the box's waits (a file opened, written, moved into place, checked)
// add up: a party's export took 1.4× rclone copy's time.
const davParallel = 4

// remoteFile is a file on the target, as an export notes it (Job.Progress):
// its JSON keeps the names webdav.Entry was noted under.
type remoteFile struct {
	Size int64
	ETag string
	// SHA256 is the hex SHA-256 of what was sent (the manifest's).
	SHA256 string `json:",omitempty"`
}

// davTarget is a WebDAV server.
type davTarget struct{ r *webdav.Remote }

func (d davTarget) prepare(_ context.Context, folder string) error {
	return cloudErr(d.r.MkdirAll(folder))
}

func (d davTarget) list(_ context.Context, dir string) (map[string]remoteFile, error) {
	have, _, err := d.r.List(dir)
	if err != nil {
		return nil, cloudErr(err)
	}
	out := make(map[string]remoteFile, len(have))
	for name, e := range have {
		out[name] = remoteFile{Size: e.Size, ETag: e.ETag}
	}
	return out, nil
}

func (davTarget) parallel() int { return davParallel }

// lockedTries is how many times a file is sent when the server answers
// 423 Locked. The WebDAV client makes the file's folder (MKCOL) before
// each PUT, and servers built on golang.org/x/net/webdav (rclone serve
// webdav among them) lock a name for the length of each request: with
// four files at a time, two MKCOLs of one folder met and one was
// refused. The lock goes with the other request.
const lockedTries = 5

func (d davTarget) put(ctx context.Context, dir, name string, r io.ReaderAt, size int64) (remoteFile, error) {
	for try := 1; ; try++ {
		e, err := d.r.Put(dir, name, newUpload(ctx, r, size), size)
		if err == nil {
			return remoteFile{Size: e.Size, ETag: e.ETag}, nil
		}
		var we *webdav.Error
		if !errors.As(err, &we) || we.Status != http.StatusLocked || try == lockedTries {
			return remoteFile{}, cloudErr(err)
		}
		select {
		case <-ctx.Done():
			return remoteFile{}, ctx.Err()
		case <-time.After(time.Duration(try) * 50 * time.Millisecond):
		}
	}
}

// s3Target is a prefix of an S3-compatible bucket. Its large files go as
// multipart uploads that resume: the upload under way is kept in the
// export job's record (exportState.Upload, through keep) before its first
// part is sent, and the next attempt sends only the parts the store does
// not have.
type s3Target struct {
	b *s3store.Bucket
	// upload is the multipart upload under way that an earlier attempt
	// kept; keep writes one into the job's record ("" ID: none).
	upload func() s3store.Upload
	keep   func(s3store.Upload) error
}

func (s s3Target) prepare(context.Context, string) error { return nil }

// parallel is 1: the multipart upload under way is one, kept in the job's
// record for the next attempt.
func (s3Target) parallel() int { return 1 }

func (s s3Target) list(ctx context.Context, dir string) (map[string]remoteFile, error) {
	have, err := s.b.List(ctx, dir)
	if err != nil {
		return nil, s3Err(err)
	}
	out := make(map[string]remoteFile, len(have))
	for name, o := range have {
		out[name] = remoteFile{Size: o.Size, ETag: o.ETag}
	}
	return out, nil
}

func (s s3Target) put(ctx context.Context, dir, name string, r io.ReaderAt, size int64) (remoteFile, error) {
	key := s3store.Key(dir, name)
	kind := mime.TypeByExtension(path.Ext(name))
	var o s3store.Object
	var err error
	if s.b.Large(size) {
		o, err = s.b.PutParts(ctx, key, r, size, kind, s.upload(), s.keep)
		if err == nil {
			err = s.keep(s3store.Upload{})
		}
	} else {
		o, err = s.b.Put(ctx, key, r, size, kind)
	}
	if err != nil {
		return remoteFile{}, s3Err(err)
	}
	return remoteFile{Size: o.Size, ETag: o.ETag}, nil
}

// s3Err marks the store's refusals that retrying cannot change as
// permanent.
func s3Err(err error) error {
	var e *s3store.Error
	if errors.As(err, &e) && e.Permanent() {
		return jobs.Permanent(err)
	}
	return err
}

// s3Settings are the store's S3 settings as s3store takes them.
func s3Settings(c *store.S3Settings) s3store.Settings {
	return s3store.Settings{Endpoint: c.Endpoint, Region: c.Region, Bucket: c.Bucket, AccessKey: c.AccessKey,
		Secret: c.Secret, PathStyle: c.PathStyle}
}

// BucketFunc opens the S3-compatible bucket of the settings.
type BucketFunc func(s s3store.Settings) (*s3store.Bucket, error)

// dialBucket is the BucketFunc of s3store.New over transport (nil: its
// default).
func dialBucket(transport http.RoundTripper) BucketFunc {
	return func(s s3store.Settings) (*s3store.Bucket, error) {
		return s3store.New(s, s3store.Config{Transport: transport})
	}
}

// errSecretLost: the stored S3 secret does not open with this box's key.
var errSecretLost = errors.New("the S3 secret key was sealed by another box (this database comes from its backup): enter it again")

// secretLost answers why the settings' secret cannot be used, or nil.
func secretLost(c store.CloudSettings) error {
	if c.Target() == store.CloudS3 {
		if c.S3.SecretLost && c.S3.Secret == "" {
			return errSecretLost
		}
		return nil
	}
	if c.PasswordLost && c.Password == "" {
		return errPasswordLost
	}
	return nil
}

// folderOf names the event's folder on the target: under the settings'
// folder on a WebDAV server; <prefix>/<box name>/<event> in a bucket, so
// many boxes share one bucket without clashing.
func (s *Exporter) folderOf(c store.CloudSettings, e store.Event) string {
	if c.Target() == store.CloudS3 {
		return s3store.Key(c.S3.Prefix, s.boxName(c), eventFolder(e))
	}
	return path.Join(Folder(c.Folder), eventFolder(e))
}

// boxName answers the box's name in an S3 export's keys: the settings'
// own, else the box's.
func (s *Exporter) boxName(c store.CloudSettings) string { return boxNameOf(c, s.cfg.BoxName) }

// boxNameOf answers the settings' name of the box, else own.
func boxNameOf(c store.CloudSettings, own string) string {
	if c.S3 != nil {
		if n := s3store.Key(c.S3.BoxName); n != "" {
			return n
		}
	}
	return own
}

// target opens where the settings send the export. An S3 target keeps a
// multipart upload under way in state and writes it with report before
// its first part is sent.
func (s *Exporter) target(ctx context.Context, c store.CloudSettings, state *exportState, report func() error) (target, error) {
	if c.Target() == store.CloudS3 {
		b, err := s.cfg.Bucket(s3Settings(c.S3))
		if err != nil {
			return nil, err
		}
		return s3Target{b: b,
			upload: func() s3store.Upload {
				if state.Upload == nil {
					return s3store.Upload{}
				}
				return *state.Upload
			},
			keep: func(u s3store.Upload) error {
				if u.ID == "" {
					state.Upload = nil
					return nil // written with the file's own report
				}
				state.Upload = &u
				return report()
			}}, nil
	}
	r, err := s.cfg.Remote(ctx, webdav.Settings{URL: c.URL, User: c.User, Password: c.Password})
	if err != nil {
		return nil, err
	}
	return davTarget{r: r}, nil
}
