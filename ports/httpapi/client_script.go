package httpapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/domain/form"
)

// ClientScriptPath serves the browser helper that enhances <form data-formd>.
const ClientScriptPath = "/client/script.js"

// clientScript is served as it is written: no build step, ES2017, no
// dependencies (client_script_test.go keeps it under 5 KB gzipped).
//
//go:embed client/script.js
var clientScript []byte

// clientScriptETag names this build's script; it changes only when the file does.
var clientScriptETag = func() string {
	sum := sha256.Sum256(clientScript)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}()

// clientScript serves GET /client/script.js. Sites include it from another
// origin, often with Subresource Integrity and crossorigin="anonymous", which
// needs a CORS answer: the file is public, so any origin may read it.
// With ?lang=<tag> its messages are in that catalog's language.
func (s *Server) clientScript(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	script, ok := clientScriptIn(s.config.Messages, c.Query("lang"))
	if !ok {
		s.fail(c, http.StatusNotFound, "The client script has no such language; lang is one of "+strings.Join(form.Languages, ", ")+".")
		return
	}
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("ETag", script.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(c.GetHeader("If-None-Match"), script.etag) {
		c.Status(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, "text/javascript; charset=utf-8", script.body)
}

// etagMatches applies If-None-Match: a list of entity tags, or *.
func etagMatches(header, etag string) bool {
	for _, candidate := range strings.Split(header, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == etag || candidate == "*" {
			return true
		}
	}
	return false
}
