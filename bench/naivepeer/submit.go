package main

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"
)

// insertSubmission is the one statement a submission costs.
const insertSubmission = `INSERT INTO naive_submissions (access_key, data) VALUES ($1, $2)`

// newRouter serves GET /healthz and POST /submit. It logs nothing per
// request (gin.New, not gin.Default): the bench runs formd at
// FORMD_LOG_LEVEL=error, so neither side pays for an access log.
func newRouter(pool *pgxpool.Pool) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.Recovery())
	r.GET("/healthz", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	r.POST("/submit", func(c *gin.Context) { submit(c, pool) })
	return r
}

// submit stores one submission with one INSERT and answers 200 once it is
// committed (autocommit: the INSERT is its own transaction).
func submit(c *gin.Context, pool *pgxpool.Pool) {
	fields, ok := readFields(c)
	if !ok {
		c.JSON(http.StatusBadRequest, gin.H{"success": false, "message": "the body is neither a JSON object nor a form"})
		return
	}
	key, _ := fields["access_key"].(string)
	if key == "" {
		c.JSON(http.StatusBadRequest, gin.H{"success": false, "message": "access_key is required"})
		return
	}
	delete(fields, "access_key")
	data, err := json.Marshal(fields)
	if err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"success": false, "message": err.Error()})
		return
	}
	if _, err := pool.Exec(c.Request.Context(), insertSubmission, key, data); err != nil {
		c.JSON(http.StatusInternalServerError, gin.H{"success": false, "message": "could not store the submission"})
		return
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "message": "Form submitted successfully"})
}

// readFields reads a JSON object or a urlencoded or multipart form.
func readFields(c *gin.Context) (map[string]any, bool) {
	fields := map[string]any{}
	if strings.HasPrefix(c.ContentType(), "application/json") {
		return fields, c.ShouldBindJSON(&fields) == nil
	}
	if err := c.Request.ParseMultipartForm(1 << 20); err != nil && err != http.ErrNotMultipart {
		return nil, false
	}
	for name, values := range c.Request.PostForm {
		if len(values) == 1 {
			fields[name] = values[0]
		} else {
			fields[name] = values
		}
	}
	return fields, true
}
