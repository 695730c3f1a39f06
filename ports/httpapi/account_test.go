package httpapi

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

func TestOpenAPIAccountShapes(t *testing.T) {
	doc := loadOpenAPI(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	summary := application.AccountSummary{ID: "0b7c6f1e-4a53-4f7e-9a0c-2f3f8f5f1a11", Email: "ada@example.com", EmailVerified: true,
		Plan: account.PlanPro, Entitlements: []string{account.FeatureWildcardDomains, account.FeatureCC}, Grants: []string{account.FeatureCC},
		Usage: account.Usage{Plan: account.PlanPro, Quota: 50000, Used: 12, Month: account.MonthOf(now)}}
	checkShape(t, "GET /v1/account", responseSchema(t, doc, "GET", "/v1/account", 200, "application/json"), gin.H{"account": presentAccount(summary)})
	summary.Entitlements, summary.Grants, summary.Usage.Used = nil, nil, 60000 // a lowered quota: over it
	got := presentAccount(summary)
	if got.Usage.Remaining != 0 || got.Entitlements == nil || got.Usage.ResetsAt != time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) || got.Usage.Month != "2026-11" {
		t.Errorf("presentAccount = %+v", got)
	}
	checkShape(t, "GET /v1/account, nothing held", responseSchema(t, doc, "GET", "/v1/account", 200, "application/json"), gin.H{"account": got})

	operator := application.Metadata{Actor: application.Actor{Type: application.ActorOperator, ID: "root"}}
	var events []historyJSON
	for i, e := range []account.Event{
		account.Registered{AccountID: "a", Email: "ada@example.com", Name: "Ada", PasswordHash: "$argon2id$secret-hash", WorkspaceID: "w", WorkspaceName: "Default"},
		account.EmailVerified{}, account.WorkspaceCreated{WorkspaceID: "w2", Name: "Side"},
		account.FeatureGranted{Feature: account.FeatureCC}, account.FeatureRevoked{Feature: account.FeatureCC},
		account.PlanChanged{Plan: account.PlanPro, Previous: account.PlanFree}, account.PasswordReset{PasswordHash: "$argon2id$secret-hash"},
	} {
		h := application.HistoryEntry{Type: e.EventType(), Version: i + 1, RecordedAt: now, Metadata: operator, ActorName: "operator", Event: e}
		events = append(events, presentHistoryEntry(h, accountChangesOf(h)))
	}
	checkShape(t, "GET /v1/account/events", responseSchema(t, doc, "GET", "/v1/account/events", 200, "application/json"), gin.H{"events": events})
	for _, e := range events {
		for _, c := range e.Changes {
			if strings.Contains(string(c.From)+string(c.To)+c.Field, "argon2id") {
				t.Errorf("%s shows a password hash: %+v", e.Type, c)
			}
		}
	}
	if plan := events[5].Changes; len(plan) != 1 || plan[0].Field != "plan" || string(plan[0].From) != `"free"` || string(plan[0].To) != `"pro"` {
		t.Errorf("plan change shown as %+v", plan)
	}
	if grant := events[3].Changes; len(grant) != 1 || grant[0].Field != "grants.cc_recipients" || string(grant[0].To) != "true" {
		t.Errorf("grant shown as %+v", grant)
	}
}

// A quota refusal is a 429 whose body carries the SubmissionResponse fields,
// as a dry run's refusal does, on both submission routes.
func TestOpenAPIQuotaRefusalShape(t *testing.T) {
	doc := loadOpenAPI(t)
	msg := account.Usage{Plan: account.PlanFree, Quota: 1000, Used: 1000, Month: account.MonthOf(time.Now())}.ExhaustedMessage()
	refused := application.SubmissionResponse{Success: false, Message: msg, RequestID: "req_0123456789", DryRun: true,
		WebhookDeliveryIDs: []string{}, NotificationDeliveryIDs: []string{},
		Validation: &application.DryRunValidation{FieldNames: []string{"message"}, RecipientVerified: true},
		Gates: []application.GateResult{
			{Gate: submission.GateAccessKey, Outcome: submission.OutcomePassed},
			{Gate: submission.GateFields, Outcome: submission.OutcomePassed},
			{Gate: submission.GateQuota, Outcome: submission.OutcomeFailed, Message: msg},
		},
		Body: application.ResponseBody{Data: map[string]string{"message": "hi"}, Message: msg}}
	for _, path := range []string{"/submit", "/submit/{accessKey}"} {
		checkShape(t, path+" 429", responseSchema(t, doc, "POST", path, 429, "application/json"), refused)
	}
	gates := schemaNamed(t, doc, "GateResult").Properties["gate"].Value.Enum
	for _, g := range []string{submission.GateAccessKey, submission.GateRecipientVerified, submission.GateOrigin, submission.GateServerSide,
		submission.GateHoneypot, submission.GateRedirect, submission.GatePaidFeatures, submission.GateUploads, submission.GateFields, submission.GateQuota} {
		if !slices.Contains(gates, any(g)) {
			t.Errorf("GateResult.gate does not list %s", g)
		}
	}
}

func TestTheErrorPageExplainsQuotaAndFloodRefusals(t *testing.T) {
	for _, code := range []string{submission.GateQuota, reasonFormFlooded} {
		if !pageReasons[code] {
			t.Errorf("no error page text for %s", code)
		}
	}
}
