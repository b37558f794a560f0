package api_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"eventbox/api"
)

// TestDocumentIsValidOpenAPI31 loads the document and validates it as
// OpenAPI 3.1: its structure, every $ref, and every schema as JSON
// Schema 2020-12.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi: %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableSchemaFormatValidation()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
}
