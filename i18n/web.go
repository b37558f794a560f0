package i18n

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"testing/fstest"
)

// IndexPath is where [Web] serves the list of languages: a JSON object of
// each code to the language's own name, {"en": "English", "fr":
// "Français"}, the reference first.
const IndexPath = "locales/index.json"

// IndexModulePath is the same list as a JavaScript module whose default
// export is that object: the pages import it (js/i18n.js), so the list
// arrives with their code instead of a request after it.
const IndexModulePath = "locales/index.js"

// Web returns the web interface ui with what the pages read of the
// catalogue in its locales folder added: IndexPath (and IndexModulePath),
// and each language's
// sections apart, locales/<code>/<section>.json (a JSON object of keys to
// texts, the language's own only: the pages fall back to the reference's
// file themselves). A nil ui stays nil. The result holds ui's files in
// memory (testing/fstest.MapFS is a plain read-only map of files) and is
// safe for concurrent use.
func Web(ui fs.FS) (fs.FS, error) {
	if ui == nil {
		return nil, nil
	}
	locales, err := fs.Sub(ui, "locales")
	if err != nil {
		return nil, fmt.Errorf("opening the catalogue of the web files: %w", err)
	}
	c, err := Load(locales)
	if err != nil {
		return nil, err
	}
	out := fstest.MapFS{}
	err = fs.WalkDir(ui, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(ui, p)
		if err != nil {
			return err
		}
		out[p] = &fstest.MapFile{Data: b, Mode: 0o444}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the web files: %w", err)
	}
	index, err := c.index()
	if err != nil {
		return nil, err
	}
	out[IndexPath] = &fstest.MapFile{Data: index, Mode: 0o444}
	module := append(append([]byte("export default "), index...), ";\n"...)
	out[IndexModulePath] = &fstest.MapFile{Data: module, Mode: 0o444}
	for _, code := range c.codes {
		l := c.langs[code]
		for _, s := range l.Sections() {
			b, err := json.Marshal(l.sections[s])
			if err != nil {
				return nil, fmt.Errorf("writing section %s of %s: %w", s, code, err)
			}
			out[sectionPath(code, s)] = &fstest.MapFile{Data: b, Mode: 0o444}
		}
	}
	return out, nil
}

// index is the JSON of IndexPath, the codes in the order of [Catalogue.Codes].
func (c *Catalogue) index() ([]byte, error) {
	b := []byte{'{'}
	for i, code := range c.codes {
		k, err := json.Marshal(code)
		if err != nil {
			return nil, fmt.Errorf("writing the language index: %w", err)
		}
		v, err := json.Marshal(c.langs[code].name)
		if err != nil {
			return nil, fmt.Errorf("writing the language index: %w", err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
