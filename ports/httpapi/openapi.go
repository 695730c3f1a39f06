package httpapi

import (
	"crypto/sha256"
	_ "embed" // the OpenAPI document is embedded
	"encoding/hex"
	"net/http"

	"github.com/gin-gonic/gin"
)

// openAPIDocument is formd's machine-readable contract (OpenAPI 3.0.3, version
// 0.1.0): every route NewServer registers, with its parameters, bodies and
// answers. openapi_test.go keeps it in step with the routes and the JSON shapes.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIETag identifies this build's document so clients can revalidate cheaply.
var openAPIETag = func() string {
	sum := sha256.Sum256(openAPIDocument)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}()

// openAPI serves the contract at GET /openapi.json, the api-catalog's
// service-desc. The document is static for a build, so it may be cached and is
// revalidated with its ETag.
func (s *Server) openAPI(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=3600")
	c.Header("ETag", openAPIETag)
	if etagMatches(c.GetHeader("If-None-Match"), openAPIETag) {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, "application/json", openAPIDocument)
}
