package portkit

import (
	"encoding/json"
	"testing"

	"github.com/formd/formd/application"
)

// Lists a form has none of are [] (the spec's arrays, and what MCP's output
// schema accepts), never null: a form with no rules included.
func TestAnEmptyFormShowsEmptyLists(t *testing.T) {
	raw, err := json.Marshal(PresentForm(application.FormRecord{}))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		AllowedDomains   []string `json:"allowedDomains"`
		AllowedSenderIPs []string `json:"allowedSenderIps"`
		Validation       struct {
			Fields []FieldRule `json:"fields"`
		} `json:"validation"`
	}
	_ = json.Unmarshal(raw, &m)
	if m.AllowedDomains == nil || m.AllowedSenderIPs == nil || m.Validation.Fields == nil {
		t.Fatalf("empty lists must be [], got %s", raw)
	}
}
