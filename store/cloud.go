package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Cloud export records. store/doc.go ("Cloud export") describes the keys.
var (
	bExports = []byte("exports")
	// cloudKey holds the cloud settings (WebDAV or S3) in the meta bucket.
	cloudKey = []byte("cloud")
)

// ExportJobKind is the job kind that sends one export to the cloud, a
// WebDAV server or an S3-compatible bucket (daemon/cloudexport). Its
// payload is ExportJob; its key is the export's id.
const ExportJobKind = "export"

// Export statuses.
const (
	ExportQueued  = "queued"
	ExportRunning = "running"
	ExportDone    = "done"
	ExportFailed  = "failed"
)

// Export scopes: which photos an export sends.
const (
	ExportVisible   = "visible"
	ExportFavorites = "favorites"
)

// ExportsKept is how many exports an event keeps listed (the latest).
const ExportsKept = 20

// Cloud export targets (CloudSettings.Kind).
const (
	// CloudWebDAV is a WebDAV server (URL, User, Password); a record
	// without a kind, written before S3 was one, is WebDAV.
	CloudWebDAV = "webdav"
	// CloudS3 is an S3-compatible bucket (S3).
	CloudS3 = "s3"
)

// CloudSettings are the box's cloud export settings: a WebDAV server or an
// S3-compatible bucket (Kind). Password and S3.Secret are secrets: they
// never leave the daemon, and the database holds them sealed with
// DATA_DIR/secret.key (package secret), which backups leave out.
type CloudSettings struct {
	// Kind is CloudWebDAV or CloudS3; "" (an older record) is CloudWebDAV.
	Kind string `json:"kind,omitempty"`
	// S3 are the bucket's settings when Kind is CloudS3.
	S3   *S3Settings `json:"s3,omitempty"`
	URL  string      `json:"url"`
	User string      `json:"user"`
	// Password is the password, opened when read and sealed when stored
	// (PasswordSealed is kept when it is empty).
	Password       string `json:"-"`
	PasswordSealed []byte `json:"passwordSealed,omitempty"`
	// PasswordLost reports a password this box cannot open (the database
	// was restored from another box): it must be entered again.
	PasswordLost bool   `json:"-"`
	Folder       string `json:"folder"`
	AutoExport   bool   `json:"autoExport"`
	// GuestLink is a public link to the export folder that the hosts
	// made on their cloud and pasted, for clouds the box cannot share
	// from itself; GuestLinkPassword its password ("" = none). The
	// guests' gallery mail carries them.
	GuestLink         string `json:"guestLink,omitempty"`
	GuestLinkPassword string `json:"guestLinkPassword,omitempty"`
	UpdatedAt         int64  `json:"updatedAt"`
}

// Target answers the settings' kind: CloudS3, or CloudWebDAV (also for a
// record without one).
func (c CloudSettings) Target() string {
	if c.Kind == CloudS3 && c.S3 != nil {
		return CloudS3
	}
	return CloudWebDAV
}

// S3Settings are the settings of an S3-compatible bucket (AWS S3,
// Backblaze B2, Wasabi, Cloudflare R2, MinIO, SeaweedFS, Ceph, Garage).
// Secret is sealed like the WebDAV password.
type S3Settings struct {
	// Endpoint is the server's address, https://s3.example.com (a bare
	// host means https).
	Endpoint string `json:"endpoint"`
	// Region is the bucket's region ("" lets the client ask, or
	// us-east-1 for the servers that have none).
	Region string `json:"region,omitempty"`
	Bucket string `json:"bucket"`
	// Prefix starts every key: <prefix>/<box name>/<event>/<file>.
	Prefix string `json:"prefix,omitempty"`
	// BoxName names this box in the keys, so many boxes share one
	// bucket; "" means the box's own name (MDNS_NAME).
	BoxName   string `json:"boxName,omitempty"`
	AccessKey string `json:"accessKey"`
	// Secret is the secret key, opened when read and sealed when stored
	// (SecretSealed is kept when it is empty).
	Secret       string `json:"-"`
	SecretSealed []byte `json:"secretSealed,omitempty"`
	// SecretLost reports a secret this box cannot open (the database was
	// restored from another box): it must be entered again.
	SecretLost bool `json:"-"`
	// PathStyle addresses the bucket in the path (https://host/bucket/key)
	// rather than as a host name (https://bucket.host/key).
	PathStyle bool `json:"pathStyle,omitempty"`
	// PublicURL is the address the bucket's owner made public for the
	// prefix (a bucket policy or a CDN), which the guests' mail links to;
	// "" means a presigned link, valid at most 7 days.
	PublicURL string `json:"publicUrl,omitempty"`
}

// Export is one export of an event to the cloud.
type Export struct {
	ID      string `json:"id"`
	EventID string `json:"eventId"`
	Scope   string `json:"scope"`
	Status  string `json:"status"`
	// Total is the files the export sends; Sent those on the server so far
	// (found there already or uploaded), Bytes their size.
	Total int   `json:"total"`
	Sent  int   `json:"sent"`
	Bytes int64 `json:"bytes"`
	// Error is why the export failed, or why its latest attempt did while
	// it waits for a retry.
	Error string `json:"error,omitempty"`
	// Folder is the event's folder on the server, fixed by the first
	// attempt so a renamed event does not start a second folder.
	Folder string `json:"folder,omitempty"`
	// CreatedAt, StartedAt (first attempt) and FinishedAt are epoch ms.
	CreatedAt  int64 `json:"createdAt"`
	StartedAt  int64 `json:"startedAt,omitempty"`
	FinishedAt int64 `json:"finishedAt,omitempty"`
	// ShareURL and SharePassword are the public link the box made of
	// Folder on the cloud (its share API) for the guests' gallery mail.
	ShareURL      string `json:"shareUrl,omitempty"`
	SharePassword string `json:"sharePassword,omitempty"`
}

// Finished reports whether the export is done or failed.
func (e Export) Finished() bool { return e.Status == ExportDone || e.Status == ExportFailed }

// ExportJob is the payload of an export job.
type ExportJob struct {
	EventID  string `json:"eventId"`
	ExportID string `json:"exportId"`
}

// Cloud holds the cloud export: its settings and the exports queued,
// running and done. It is a view of the Store it came from, as cheap to
// copy as a pointer; its methods are safe for concurrent use.
type Cloud struct{ s *Store }

// Cloud returns the cloud export.
func (s *Store) Cloud() Cloud { return Cloud{s} }

// Settings answers the stored cloud settings, and false when none
// are stored.
func (cl Cloud) Settings(ctx context.Context) (CloudSettings, bool, error) {
	var c CloudSettings
	err := cl.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bMeta), cloudKey, &c)
	})
	if errors.Is(err, ErrNotFound) {
		return CloudSettings{}, false, nil
	}
	if err != nil {
		return CloudSettings{}, false, fmt.Errorf("reading cloud settings: %w", err)
	}
	var opened bool
	c.Password, opened = cl.s.Secrets().open(labelCloudPassword, c.PasswordSealed)
	c.PasswordLost = !opened
	if c.S3 != nil {
		c.S3.Secret, opened = cl.s.Secrets().open(labelS3Secret, c.S3.SecretSealed)
		c.S3.SecretLost = !opened
	}
	return c, true, nil
}

// PutSettings stores c in place of the settings, its password sealed
// (c.PasswordSealed as it is when c.Password is empty).
func (cl Cloud) PutSettings(ctx context.Context, c CloudSettings) error {
	c.UpdatedAt = cl.s.nowMs()
	if c.Password != "" {
		sealed, err := cl.s.Secrets().seal(labelCloudPassword, c.Password)
		if err != nil {
			return fmt.Errorf("storing cloud settings: %w", err)
		}
		c.PasswordSealed = sealed
	}
	if c.S3 != nil {
		s3 := *c.S3 // the caller's settings keep their secret
		if s3.Secret != "" {
			sealed, err := cl.s.Secrets().seal(labelS3Secret, s3.Secret)
			if err != nil {
				return fmt.Errorf("storing cloud settings: %w", err)
			}
			s3.SecretSealed = sealed
		}
		c.S3 = &s3
	}
	err := cl.s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bMeta), cloudKey, &c)
	})
	if err != nil {
		return fmt.Errorf("storing cloud settings: %w", err)
	}
	return nil
}

// DeleteSettings forgets the settings. Queued exports stay; they fail
// when they run, saying the export is not set up.
func (cl Cloud) DeleteSettings(ctx context.Context) error {
	err := cl.s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bMeta).Delete(cloudKey)
	})
	if err != nil {
		return fmt.Errorf("deleting cloud settings: %w", err)
	}
	return nil
}

// exportPrefix is the key prefix of an event's exports.
func exportPrefix(eventID string) []byte { return join([]byte(eventID), []byte{0}) }

// exportKey orders an event's exports by creation time.
func exportKey(e Export) []byte {
	return join(exportPrefix(e.EventID), timeKey(e.CreatedAt), []byte(e.ID))
}

// QueueExport queues an export of the event with the given scope and its
// job, in one transaction. When an export of the same event and scope is
// still queued or running, it answers that one and false instead. Older
// exports past ExportsKept are forgotten.
func (cl Cloud) QueueExport(ctx context.Context, eventID, scope string) (Export, bool, error) {
	var out Export
	created := false
	err := cl.s.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bEvents).Get([]byte(eventID)) == nil {
			return ErrNotFound
		}
		list, err := eventExports(tx, eventID)
		if err != nil {
			return err
		}
		for _, e := range list {
			if e.Scope == scope && !e.Finished() {
				out = e
				return nil
			}
		}
		out = Export{ID: NewID(), EventID: eventID, Scope: scope, Status: ExportQueued, CreatedAt: cl.s.nowMs()}
		for _, e := range list {
			if e.CreatedAt >= out.CreatedAt {
				out.CreatedAt = e.CreatedAt + 1 // keys stay in creation order
			}
		}
		payload, err := json.Marshal(ExportJob{EventID: eventID, ExportID: out.ID})
		if err != nil {
			return err
		}
		if _, err := cl.s.Jobs().enqueue(tx, []JobSpec{{Kind: ExportJobKind, Key: out.ID, Payload: payload}}); err != nil {
			return err
		}
		b := tx.Bucket(bExports)
		if err := putJSON(b, exportKey(out), &out); err != nil {
			return err
		}
		// list is newest first; the new one is kept on top of it.
		for i, e := range list {
			if i+1 >= ExportsKept && e.Finished() {
				if err := b.Delete(exportKey(e)); err != nil {
					return err
				}
			}
		}
		created = true
		return nil
	})
	if err != nil {
		return Export{}, false, fmt.Errorf("queueing an export of event %s: %w", eventID, err)
	}
	return out, created, nil
}

// ExportStopped is the error of an export whose job ended without
// finishing it (set aside after a panic, or after MaxDeaths).
const ExportStopped = "the export stopped without finishing; ask for it again"

// eventExports lists the event's exports, newest first. An export still
// queued or running whose job is no longer unfinished is answered as
// failed with ExportStopped: nothing will carry it on.
func eventExports(tx *bolt.Tx, eventID string) ([]Export, error) {
	var out []Export
	prefix := exportPrefix(eventID)
	c := tx.Bucket(bExports).Cursor()
	byKey := tx.Bucket(bJobByKey)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var e Export
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, fmt.Errorf("reading export %s: %w", k, err)
		}
		if !e.Finished() && byKey.Get(uniqueKey(ExportJobKind, e.ID)) == nil {
			e.Status, e.Error = ExportFailed, ExportStopped
		}
		out = append(out, e)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Exports lists the event's latest exports, newest first.
func (cl Cloud) Exports(ctx context.Context, eventID string) ([]Export, error) {
	var out []Export
	err := cl.s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = eventExports(tx, eventID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listing the exports of event %s: %w", eventID, err)
	}
	return out, nil
}

// findExport answers the export's key and record.
func findExport(tx *bolt.Tx, eventID, id string) ([]byte, Export, error) {
	list, err := eventExports(tx, eventID)
	if err != nil {
		return nil, Export{}, err
	}
	for _, e := range list {
		if e.ID == id {
			return exportKey(e), e, nil
		}
	}
	return nil, Export{}, ErrNotFound
}

// Export answers one export of the event; ErrNotFound when it (or its
// event) is gone.
func (cl Cloud) Export(ctx context.Context, eventID, id string) (Export, error) {
	var out Export
	err := cl.s.db.View(func(tx *bolt.Tx) error {
		var err error
		_, out, err = findExport(tx, eventID, id)
		return err
	})
	if err != nil {
		return Export{}, fmt.Errorf("reading export %s: %w", id, err)
	}
	return out, nil
}

// UpdateExport applies fn to the stored export and writes it with jobs, in
// one transaction: the end of an export enqueues its notice with it. fn
// must not change ID, EventID or CreatedAt. A finished export stays
// finished: fn is not called and ErrExportFinished is answered.
func (cl Cloud) UpdateExport(ctx context.Context, eventID, id string, fn func(*Export), jobs ...JobSpec) (Export, error) {
	var out Export
	err := cl.s.db.Update(func(tx *bolt.Tx) error {
		key, e, err := findExport(tx, eventID, id)
		if err != nil {
			return err
		}
		if e.Finished() {
			return ErrExportFinished
		}
		fn(&e)
		e.ID, e.EventID = id, eventID
		if e.Finished() && e.FinishedAt == 0 {
			e.FinishedAt = cl.s.nowMs()
		}
		if _, err := cl.s.Jobs().enqueue(tx, jobs); err != nil {
			return err
		}
		out = e
		return putJSON(tx.Bucket(bExports), key, &e)
	})
	if err != nil {
		return Export{}, fmt.Errorf("updating export %s: %w", id, err)
	}
	return out, nil
}

// SetExportShare keeps on a done export the public link the box made of
// its folder and the link's password (Export.ShareURL, SharePassword),
// unless one is kept already: it answers the export as stored, so two
// callers agree on one link.
func (cl Cloud) SetExportShare(ctx context.Context, eventID, id, url, password string) (Export, error) {
	var out Export
	err := cl.s.db.Update(func(tx *bolt.Tx) error {
		key, e, err := findExport(tx, eventID, id)
		if err != nil {
			return err
		}
		if e.ShareURL == "" {
			e.ShareURL, e.SharePassword = url, password
			if err := putJSON(tx.Bucket(bExports), key, &e); err != nil {
				return err
			}
		}
		out = e
		return nil
	})
	if err != nil {
		return Export{}, fmt.Errorf("keeping the share of export %s: %w", id, err)
	}
	return out, nil
}

// RenewExportShare replaces the public link kept on a done export
// (Export.ShareURL) with url when it is still old (a presigned link about
// to end), and answers the export as stored: two callers agree on one
// link.
func (cl Cloud) RenewExportShare(ctx context.Context, eventID, id, old, url string) (Export, error) {
	var out Export
	err := cl.s.db.Update(func(tx *bolt.Tx) error {
		key, e, err := findExport(tx, eventID, id)
		if err != nil {
			return err
		}
		if e.ShareURL == old {
			e.ShareURL = url
			if err := putJSON(tx.Bucket(bExports), key, &e); err != nil {
				return err
			}
		}
		out = e
		return nil
	})
	if err != nil {
		return Export{}, fmt.Errorf("renewing the share of export %s: %w", id, err)
	}
	return out, nil
}

// ErrExportFinished: the export is done or failed already.
var ErrExportFinished = errors.New("export has finished")

// deleteEventExports removes the event's exports (Events.Delete); their
// queued jobs find them gone and end.
func deleteEventExports(tx *bolt.Tx, eventID string) error {
	return deletePrefix(tx.Bucket(bExports), exportPrefix(eventID))
}
