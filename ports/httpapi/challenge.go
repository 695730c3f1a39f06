package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// ChallengePath serves formd's proof-of-work challenges (ALTCHA's
// challengeurl), fetched by browsers on the sites whose forms use them.
const ChallengePath = "/challenge"

// challenge serves GET /challenge: a fresh signed challenge, never cached
// (each is meant to be solved once).
func (s *Server) challenge(c *gin.Context) {
	ch, err := s.app.Queries.IssueChallenge.Handle(c.Request.Context(), application.IssueChallenge{})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, ch)
}
