package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// MaxJSONBody caps every JSON request body.
const MaxJSONBody = 1 << 20

// DecodeJSON reads a JSON object from the request into dst (a pointer to a
// struct) strictly: each key must name a field (by its json tag) and each
// value must have the field's type, including nested objects; otherwise a
// 400 bad_request names the field. An empty body decodes as {}.
func DecodeJSON(r *http.Request, dst any) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxJSONBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return Field("body", fmt.Sprintf("must be at most %d bytes", MaxJSONBody))
		}
		return fmt.Errorf("reading body: %w", err)
	}
	return DecodeJSONBytes(body, dst)
}

// DecodeJSONBytes is DecodeJSON over a body already read.
func DecodeJSONBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return Field("body", "must be a JSON object")
	}
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	fields := make(map[string]int, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = i
		}
	}
	details := map[string]string{}
	for key, msg := range raw {
		i, ok := fields[key]
		if !ok {
			details[key] = "unknown field"
			continue
		}
		if err := StrictUnmarshal(msg, v.Field(i).Addr().Interface()); err != nil {
			details[key] = JSONErrorMessage(err)
		}
	}
	if len(details) > 0 {
		return BadRequest(details)
	}
	return nil
}

// StrictUnmarshal decodes one JSON value, refusing unknown object keys at
// any depth.
func StrictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// JSONErrorMessage turns a decoding error of one field's value into a short
// message for details.
func JSONErrorMessage(err error) string {
	var te *json.UnmarshalTypeError
	var fe *FieldError
	switch {
	case errors.As(err, &fe):
		return fe.Msg
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("%s: must be %s", te.Field, jsonTypeName(te.Type))
		}
		return "must be " + jsonTypeName(te.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	default:
		return "must be valid JSON"
	}
}

func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return "of another type"
	}
}

// FieldError carries a ready message out of an UnmarshalJSON method:
// DecodeJSON answers it as the field's message.
type FieldError struct{ Msg string }

// Error is the field's message.
func (e *FieldError) Error() string { return e.Msg }

// Optional is a request field that may be absent or hold a value; null is
// refused ("must not be null"). It serves PATCH bodies, where absent means
// "leave as is".
type Optional[T any] struct {
	Set   bool
	Value T
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return &FieldError{Msg: "must not be null"}
	}
	if err := StrictUnmarshal(b, &o.Value); err != nil {
		return err
	}
	o.Set = true
	return nil
}

// Nullable is a request field that may be absent, null, or hold a value:
// in a PATCH, null removes the stored value (accessCode: null).
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	return StrictUnmarshal(b, &n.Value)
}
