package features_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Workspace API tokens (README "Workspace API tokens"): a session makes
// them; each reaches one workspace, through the routes its scopes allow.

// allScopes are the spec's scopes.
var allScopes = []string{"forms:read", "forms:write", "submissions:test", "submissions:read", "submissions:delete"}

// scopesBut is every scope except skip.
func scopesBut(skip string) []string {
	var out []string
	for _, s := range allScopes {
		if s != skip {
			out = append(out, s)
		}
	}
	return out
}

// WorkspaceToken is a token as POST /v1/workspaces/{id}/tokens made it.
type WorkspaceToken struct {
	ID, Secret string
	JSON       map[string]any
}

// CreateToken makes a workspace API token with the session, expecting 201.
func (f *Formd) CreateToken(session, workspaceID string, body map[string]any) WorkspaceToken {
	GinkgoHelper()
	r := f.Post(session, "/v1/workspaces/"+workspaceID+"/tokens", body)
	Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
	Expect(r.Header.Get("Cache-Control")).To(Equal("no-store"))
	t := r.Object("token")
	return WorkspaceToken{ID: t["id"].(string), Secret: t["secret"].(string), JSON: t}
}

// TokenWith makes a token of the workspace holding scopes (at least one).
func (f *Formd) TokenWith(session, workspaceID string, scopes ...string) WorkspaceToken {
	GinkgoHelper()
	return f.CreateToken(session, workspaceID, map[string]any{"name": "spec " + strings.Join(scopes, " "), "scopes": scopes})
}

// Workspaces lists the caller's workspaces (GET /v1/workspaces, expecting 200).
func (f *Formd) Workspaces(token string) []map[string]any {
	GinkgoHelper()
	r := f.Get(token, "/v1/workspaces")
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	var out []map[string]any
	for _, v := range r.Array("workspaces") {
		out = append(out, v.(map[string]any))
	}
	return out
}

// Delete sends DELETE path with the bearer token.
func (f *Formd) Delete(token, path string, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodDelete, path, nil, auth(token, headers)...)
}

// scopedRoute is one /v1 operation of the contract: the scope a workspace
// token needs for it ("" for sessions only), how to call it, and what a
// caller that may use it gets.
type scopedRoute struct {
	method, path string // as /openapi.json names it
	scope        string
	// typ fills {type}; query holds required query parameters; body is the
	// request body (nil: none).
	typ   string
	query string
	body  func() any
	// status is the answer to a token with the scope (to a session, for a
	// route that takes sessions only).
	status int
}

// scopedRoutes is every /v1 operation; a spec checks it against
// /openapi.json, so a new route must join it.
var scopedRoutes = []scopedRoute{
	{method: "GET", path: "/v1/workspaces", scope: "forms:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms", scope: "forms:read", status: http.StatusOK},
	{method: "POST", path: "/v1/forms", scope: "forms:write", status: http.StatusCreated,
		body: func() any { return contactForm(nil) }},
	{method: "PATCH", path: "/v1/forms/{formId}", scope: "forms:write", status: http.StatusOK,
		body: func() any { return map[string]any{"subjectDefault": "Changed by a token"} }},
	{method: "GET", path: "/v1/forms/{formId}/events", scope: "forms:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms/{formId}/versions/{version}", scope: "forms:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms/{formId}/versions/{version}/diff/{to}", scope: "forms:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms/{formId}/audit/export", scope: "forms:read", status: http.StatusOK},
	{method: "POST", path: "/v1/forms/{formId}/restore", scope: "forms:write", status: http.StatusOK,
		body: func() any { return map[string]any{"version": 1} }},
	{method: "GET", path: "/v1/forms/{formId}/recipient-verification", scope: "forms:read", status: http.StatusOK},
	{method: "POST", path: "/v1/forms/{formId}/recipient-verifications", scope: "forms:write", status: http.StatusCreated},
	{method: "GET", path: "/v1/forms/{formId}/integrations", scope: "forms:read", status: http.StatusOK},
	{method: "PATCH", path: "/v1/forms/{formId}/integrations/{type}", typ: "discord", scope: "forms:write", status: http.StatusOK,
		body: func() any {
			return map[string]any{"enabled": false, "targetUrl": "https://discord.example.test/api/webhooks/1/x"}
		}},
	{method: "POST", path: "/v1/forms/{formId}/integrations/webhook/rotate-secret", scope: "forms:write", status: http.StatusOK},
	{method: "POST", path: "/v1/forms/{formId}/integrations/{type}/test", typ: "webhook", scope: "forms:write", status: http.StatusCreated},
	{method: "GET", path: "/v1/forms/{formId}/deliveries", scope: "forms:read", status: http.StatusOK},
	{method: "GET", path: "/v1/deliveries/{deliveryId}", scope: "forms:read", status: http.StatusOK},
	{method: "POST", path: "/v1/deliveries/{deliveryId}/retry", scope: "forms:write", status: http.StatusAccepted},
	{method: "GET", path: "/v1/forms/{formId}/test-inbox", scope: "submissions:test", status: http.StatusOK},
	{method: "DELETE", path: "/v1/forms/{formId}/test-inbox", scope: "submissions:test", status: http.StatusOK},
	// The form keeps no archive: nothing to list, read or erase, and that is
	// said the same way with a token as with a session.
	{method: "GET", path: "/v1/forms/{formId}/submissions", scope: "submissions:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms/{formId}/submissions/export", query: "?format=csv", scope: "submissions:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms/{formId}/submissions/{submissionId}", scope: "submissions:read", status: http.StatusNotFound},
	{method: "GET", path: "/v1/forms/{formId}/submissions/{submissionId}/attachments/{index}", scope: "submissions:read", status: http.StatusNotFound},
	{method: "DELETE", path: "/v1/forms/{formId}/submissions/{submissionId}", scope: "submissions:delete", status: http.StatusNotFound},
	{method: "POST", path: "/v1/forms/{formId}/submissions/erase", scope: "submissions:delete", status: http.StatusOK,
		body: func() any { return map[string]any{"email": "nobody@example.com"} }},
	// The form holds no spam: an empty folder, and no submission to review.
	{method: "GET", path: "/v1/forms/{formId}/spam", scope: "submissions:read", status: http.StatusOK},
	{method: "GET", path: "/v1/forms/{formId}/spam/{submissionId}", scope: "submissions:read", status: http.StatusNotFound},
	{method: "POST", path: "/v1/forms/{formId}/spam/{submissionId}/not-spam", scope: "submissions:delete", status: http.StatusNotFound},
	{method: "POST", path: "/v1/forms/{formId}/spam/{submissionId}/spam", scope: "submissions:delete", status: http.StatusNotFound},
	{method: "DELETE", path: "/v1/forms/{formId}/spam/{submissionId}", scope: "submissions:delete", status: http.StatusNotFound},
	{method: "GET", path: "/v1/workspaces/{workspaceId}/tokens", status: http.StatusOK},
	{method: "POST", path: "/v1/workspaces/{workspaceId}/tokens", status: http.StatusCreated,
		body: func() any { return map[string]any{"name": "made on the table", "scopes": []string{"forms:read"}} }},
	{method: "DELETE", path: "/v1/workspaces/{workspaceId}/tokens/{tokenId}", status: http.StatusNoContent},
	{method: "GET", path: "/v1/account", status: http.StatusOK},
	{method: "GET", path: "/v1/account/events", status: http.StatusOK},
}

var _ = Describe("Workspace API tokens", Ordered, ContinueOnFailure, func() {
	var (
		f        *Formd
		receiver *webhookReceiver
		session  string
		email    string // the session's account's
		ws, ws2  string // the account's default workspace, and a second one
		formID   string // a form of ws
		form2ID  string // a form of ws2
		failed   string // a failed delivery of formID (a Slack test answered 410)
	)

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		// Every route of the table is called with fresh tokens: more writes a
		// minute than the default limit allows, which other specs cover.
		f = StartFormd("FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile, "FORMD_API_WRITE_RATE=0")
		session, email = f.RegisteredVerifiedUser()
		spaces := f.Workspaces(session)
		Expect(spaces).To(HaveLen(1))
		Expect(spaces[0]).To(HaveKeyWithValue("name", "Default"))
		ws = spaces[0]["id"].(string)
		form, _ := f.CreateForm(session, contactForm(nil))
		formID = form["id"].(string)
		Expect(form).To(HaveKeyWithValue("workspaceId", ws))
		form2, _ := f.CreateForm(session, contactForm(map[string]any{"workspaceName": "Side"}))
		form2ID, ws2 = form2["id"].(string), form2["workspaceId"].(string)

		r := f.Patch(session, integrationsPath(formID, "webhook"), map[string]any{"enabled": false, "targetUrl": receiver.URL("/hook")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		r = f.Patch(session, integrationsPath(formID, "slack"), map[string]any{"enabled": false, "targetUrl": receiver.URL("/gone")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		r = f.Post(session, integrationsPath(formID, "slack")+"/test", nil)
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		failed = r.Object("delivery")["id"].(string)
		Eventually(func() any {
			got := f.Get(session, "/v1/deliveries/"+failed)
			if got.Status != http.StatusOK {
				return got.Status // not in the log until the queue has projected it
			}
			return got.Object("delivery")["state"]
		}).WithTimeout(10*time.Second).Should(Equal("failed"), "a 410 fails the test delivery for good")
	})

	// call sends the route's request with token; victim is the token a
	// DELETE of the table deletes.
	call := func(rt scopedRoute, token, victim string) *Response {
		GinkgoHelper()
		path := strings.NewReplacer("{formId}", formID, "{deliveryId}", failed, "{type}", rt.typ,
			"{workspaceId}", ws, "{tokenId}", victim, "{version}", "1", "{to}", "1",
			"{submissionId}", "00000000-0000-4000-8000-000000000000", "{index}", "0").Replace(rt.path) + rt.query
		var body any
		if rt.body != nil {
			body = rt.body()
		}
		return f.Do(rt.method, path, body, Bearer(token))
	}

	It("lists every /v1 operation of the contract in the scope table, with the scope /openapi.json gives it", func() {
		r := f.Get("", "/openapi.json")
		Expect(r.Status).To(Equal(http.StatusOK))
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		Expect(json.Unmarshal(r.Body, &doc)).To(Succeed())
		documented := map[string]string{}
		for path, item := range doc.Paths {
			if !strings.HasPrefix(path, "/v1/") {
				continue
			}
			for method, raw := range item {
				if method == "parameters" {
					continue
				}
				var op struct {
					Security []map[string][]string `json:"security"`
				}
				Expect(json.Unmarshal(raw, &op)).To(Succeed())
				Expect(op.Security).NotTo(BeEmpty(), "%s %s declares its security", method, path)
				scopes := op.Security[0]["bearer"]
				Expect(len(scopes)).To(BeNumerically("<=", 1), "%s %s", method, path)
				documented[strings.ToUpper(method)+" "+path] = strings.Join(scopes, "")
			}
		}
		inTable := map[string]string{}
		for _, rt := range scopedRoutes {
			inTable[rt.method+" "+rt.path] = rt.scope
		}
		Expect(inTable).To(Equal(documented))
	})

	DescribeTable("enforces each route's scope: a token with it gets through, one without it gets 403 naming it",
		func(rt scopedRoute) {
			if rt.scope == "" {
				victim := f.TokenWith(session, ws, "forms:read")
				every := f.TokenWith(session, ws, allScopes...)
				By("a token, whatever its scopes, being refused")
				ExpectError(call(rt, every.Secret, victim.ID), http.StatusForbidden, "Workspace API tokens cannot")
				By("a session getting through")
				r := call(rt, session, victim.ID)
				Expect(r.Status).To(Equal(rt.status), "%s", r)
				return
			}
			without := f.TokenWith(session, ws, scopesBut(rt.scope)...)
			with := f.TokenWith(session, ws, rt.scope)
			// The workspace holds at most 50 tokens, and the specs after the
			// table make theirs in it too.
			DeferCleanup(func() {
				for _, t := range []WorkspaceToken{without, with} {
					Expect(f.Delete(session, "/v1/workspaces/"+ws+"/tokens/"+t.ID).Status).To(Equal(http.StatusNoContent))
				}
			})
			ExpectError(call(rt, without.Secret, ""), http.StatusForbidden, rt.scope)
			r := call(rt, with.Secret, "")
			Expect(r.Status).To(Equal(rt.status), "%s", r)
		},
		func(rt scopedRoute) string {
			who := "sessions only"
			if rt.scope != "" {
				who = rt.scope
			}
			return rt.method + " " + rt.path + " (" + who + ")"
		},
		func() []TableEntry {
			var entries []TableEntry
			for _, rt := range scopedRoutes {
				entries = append(entries, Entry(nil, rt))
			}
			return entries
		}(),
	)

	It("makes a token shown once, lists it without the secret, and keeps only its hash", func() {
		db := f.OpenDB()
		expires := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
		t := f.CreateToken(session, ws, map[string]any{"name": "  Deploys  ",
			"scopes": []string{"forms:write", "forms:read", "forms:write"}, "expiresAt": expires.Format(time.RFC3339)})
		Expect(t.Secret).To(MatchRegexp(`^fdw_[A-Za-z0-9_-]{43}$`), "fdw_ and 256 random bits")
		Expect(t.JSON).To(HaveKeyWithValue("id", MatchRegexp(uuidPattern)))
		Expect(t.JSON).To(HaveKeyWithValue("workspaceId", ws))
		Expect(t.JSON).To(HaveKeyWithValue("name", "Deploys"))
		Expect(t.JSON).To(HaveKeyWithValue("prefix", t.Secret[:12]))
		Expect(t.JSON).To(HaveKeyWithValue("scopes", []any{"forms:read", "forms:write"}))
		Expect(t.JSON).To(HaveKeyWithValue("expiresAt", expires.Format(time.RFC3339)))
		Expect(t.JSON).To(HaveKeyWithValue("lastUsedAt", BeNil()))

		r := f.Get(session, "/v1/workspaces/"+ws+"/tokens")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		var listed map[string]any
		for _, v := range r.Array("tokens") {
			if v.(map[string]any)["id"] == t.ID {
				listed = v.(map[string]any)
			}
		}
		Expect(listed).NotTo(BeNil(), "the new token is listed")
		Expect(listed).NotTo(HaveKey("secret"))
		Expect(string(r.Body)).NotTo(ContainSubstring(t.Secret))
		Expect(listed).To(HaveKeyWithValue("prefix", t.Secret[:12]))

		Expect(db.TablesHolding(t.Secret)).To(BeEmpty(), "only the token's SHA-256 is stored")
		Expect(db.Int(`SELECT count(*) FROM workspace_tokens WHERE id = $1 AND token_hash = sha256($2::bytea)`, t.ID, []byte(t.Secret))).To(Equal(1))
	})

	It("notes a token's last use, at most once a minute", func() {
		t := f.TokenWith(session, ws, "forms:read")
		lastUsed := func() any {
			GinkgoHelper()
			for _, v := range f.Get(session, "/v1/workspaces/"+ws+"/tokens").Array("tokens") {
				if v.(map[string]any)["id"] == t.ID {
					return v.(map[string]any)["lastUsedAt"]
				}
			}
			Fail("token not listed")
			return nil
		}
		Expect(lastUsed()).To(BeNil())
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
		first := lastUsed()
		Expect(first).To(BeAssignableToTypeOf(""), "set by the first use")
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
		Expect(lastUsed()).To(Equal(first), "a use within the minute writes nothing")
	})

	It("refuses a malformed token request with 400 naming the field", func() {
		path := "/v1/workspaces/" + ws + "/tokens"
		for body, field := range map[string]string{
			`{"name": "CI"}`:                         "scopes",
			`{"name": "CI", "scopes": []}`:           "scopes",
			`{"name": "CI", "scopes": ["admin"]}`:    "scopes",
			`{"name": "", "scopes": ["forms:read"]}`: "name",
			`{"name": "CI", "scopes": ["forms:read"], "expiresAt": "2001-01-01T00:00:00Z"}`: "expiresAt",
			`{"name": "CI", "scopes": ["forms:read"], "expiresAt": "tomorrow"}`:             "expiresAt",
		} {
			ExpectError(f.Post(session, path, RawJSON(body)), http.StatusBadRequest, field)
		}
	})

	It("keeps another account's workspaces and tokens out", func() {
		other, _ := f.RegisteredVerifiedUser()
		victim := f.TokenWith(session, ws, "forms:read")
		ExpectError(f.Get(other, "/v1/workspaces/"+ws+"/tokens"), http.StatusNotFound)
		ExpectError(f.Post(other, "/v1/workspaces/"+ws+"/tokens", map[string]any{"name": "x", "scopes": []string{"forms:read"}}), http.StatusNotFound)
		ExpectError(f.Delete(other, "/v1/workspaces/"+ws+"/tokens/"+victim.ID), http.StatusNotFound)
		Expect(f.Workspaces(other)).NotTo(ContainElement(HaveKeyWithValue("id", ws)))
		By("a token's own workspace path not reaching another workspace's token either")
		ExpectError(f.Delete(session, "/v1/workspaces/"+ws2+"/tokens/"+victim.ID), http.StatusNotFound)
		Expect(f.Get(victim.Secret, "/v1/forms").Status).To(Equal(http.StatusOK), "the token still works")
	})

	It("never reaches another workspace's forms, even of its own account", func() {
		t := f.TokenWith(session, ws, "forms:read", "forms:write")
		By("listing only its workspace, and its workspace's forms")
		Expect(f.Workspaces(t.Secret)).To(ConsistOf(HaveKeyWithValue("id", ws)))
		Expect(f.Workspaces(session)).To(ConsistOf(HaveKeyWithValue("id", ws), HaveKeyWithValue("id", ws2)))
		ids := []string{}
		for _, form := range f.Forms(t.Secret) {
			ids = append(ids, form["id"].(string))
		}
		Expect(ids).To(ContainElement(formID))
		Expect(ids).NotTo(ContainElement(form2ID))

		By("answering 404 for the other workspace's form and deliveries on every route")
		var form2Delivery string
		Eventually(func(g Gomega) {
			list := f.Get(session, "/v1/forms/"+form2ID+"/deliveries").Array("deliveries")
			g.Expect(list).NotTo(BeEmpty(), "the recipient verification mail of the form is in its log")
			form2Delivery = list[0].(map[string]any)["id"].(string)
		}).WithTimeout(10 * time.Second).Should(Succeed())
		for _, r := range []*Response{
			f.Patch(t.Secret, "/v1/forms/"+form2ID, map[string]any{"name": "Taken"}),
			f.Get(t.Secret, "/v1/forms/"+form2ID+"/events"),
			f.Get(t.Secret, "/v1/forms/"+form2ID+"/recipient-verification"),
			f.Post(t.Secret, "/v1/forms/"+form2ID+"/recipient-verifications", nil),
			f.Get(t.Secret, integrationsPath(form2ID)),
			f.Patch(t.Secret, integrationsPath(form2ID, "slack"), map[string]any{"enabled": false, "targetUrl": "https://x.example.test/h"}),
			f.Get(t.Secret, "/v1/forms/"+form2ID+"/deliveries"),
			f.Get(t.Secret, "/v1/deliveries/"+form2Delivery),
			f.Post(t.Secret, "/v1/deliveries/"+form2Delivery+"/retry", nil),
		} {
			ExpectError(r, http.StatusNotFound)
		}
		Expect(f.FormByID(session, form2ID)).To(HaveKeyWithValue("name", "Contact"), "nothing changed")

		By("creating forms in its own workspace only")
		created, _ := f.CreateForm(t.Secret, contactForm(nil))
		Expect(created).To(HaveKeyWithValue("workspaceId", ws))
		created, _ = f.CreateForm(t.Secret, contactForm(map[string]any{"workspaceId": ws}))
		Expect(created).To(HaveKeyWithValue("workspaceId", ws))
		ExpectError(f.Post(t.Secret, "/v1/forms", contactForm(map[string]any{"workspaceId": ws2})), http.StatusForbidden, "own workspace")
		ExpectError(f.Post(t.Secret, "/v1/forms", contactForm(map[string]any{"workspaceName": "Mine"})), http.StatusForbidden, "own workspace")
		Expect(f.Workspaces(session)).To(HaveLen(2), "no workspace was made")

		By("answering 404 for another account's form too")
		other, _ := f.RegisteredVerifiedUser()
		theirs, _ := f.CreateForm(other, contactForm(nil))
		ExpectError(f.Get(t.Secret, "/v1/forms/"+theirs["id"].(string)+"/events"), http.StatusNotFound)
	})

	It("names the token as the actor of what it changes, and the session as the actor of making and deleting it", func() {
		db := f.OpenDB()
		t := f.CreateToken(session, ws, map[string]any{"name": "CI deploys", "scopes": []string{"forms:write", "forms:read"}})
		tokenName := "CI deploys (" + t.JSON["prefix"].(string) + "…)"
		r := f.Patch(t.Secret, "/v1/forms/"+formID, map[string]any{"name": "Renamed by CI"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		events := f.Events(session, formID)
		last := events[len(events)-1]
		Expect(last).To(HaveKeyWithValue("type", "form.settings_changed.v1"))
		Expect(last).To(HaveKeyWithValue("actor", Equal(map[string]any{"type": "token", "id": t.ID, "name": tokenName})))
		Expect(last).To(HaveKeyWithValue("requestId", r.RequestID()))
		By("naming the owner who created the form by the account's email")
		Expect(events[0]).To(HaveKeyWithValue("type", "form.created.v1"))
		Expect(events[0]).To(HaveKeyWithValue("actor", HaveKeyWithValue("name", email)))
		Expect(events[0]).To(HaveKeyWithValue("actor", HaveKeyWithValue("type", "session")))

		Expect(f.Delete(session, "/v1/workspaces/"+ws+"/tokens/"+t.ID).Status).To(Equal(http.StatusNoContent))
		By("still naming the token once it is deleted")
		events = f.Events(session, formID)
		Expect(events[len(events)-1]).To(HaveKeyWithValue("actor", HaveKeyWithValue("name", tokenName)))
		for _, typ := range []string{"account.token_created.v1", "account.token_revoked.v1"} {
			Expect(db.String(`SELECT metadata->'actor'->>'type' FROM events WHERE event_type = $1 AND data->>'tokenId' = $2`, typ, t.ID)).
				To(Equal("session"), typ)
			actor := db.String(`SELECT metadata->'actor'->>'id' FROM events WHERE event_type = $1 AND data->>'tokenId' = $2`, typ, t.ID)
			Expect(HashPrefixOf(session, actor)).To(BeTrue(), "%s names the session by a prefix of its hash, not %q", typ, actor)
		}
		created := db.Events(`event_type = 'account.token_created.v1' AND data->>'tokenId' = $1`, t.ID)
		Expect(created).To(HaveLen(1))
		Expect(created[0].Data).To(HaveKeyWithValue("workspaceId", ws))
		Expect(created[0].Data).To(HaveKeyWithValue("scopes", []any{"forms:read", "forms:write"}))
		Expect(created[0].Data).NotTo(HaveKey("secret"))
	})

	It("stops a deleted token at once", func() {
		t := f.TokenWith(session, ws, "forms:read")
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
		Expect(f.Delete(session, "/v1/workspaces/"+ws+"/tokens/"+t.ID).Status).To(Equal(http.StatusNoContent))
		ExpectError(f.Get(t.Secret, "/v1/forms"), http.StatusUnauthorized)
		ExpectError(f.Delete(session, "/v1/workspaces/"+ws+"/tokens/"+t.ID), http.StatusNotFound, "Not found")
		r := f.Get(session, "/v1/workspaces/"+ws+"/tokens")
		Expect(r.Array("tokens")).NotTo(ContainElement(HaveKeyWithValue("id", t.ID)))
	})

	It("stops a deleted token at once in another formd process on the same database", func() {
		twin := f.StartTwin("FORMD_DATABASE_URL=" + withPoolSize(f.DatabaseURL, 4))
		t := f.TokenWith(session, ws, "forms:read")
		By("the token working on both processes")
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
		Expect(twin.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
		By("deleting it on the first, and the second refusing its very next request")
		Expect(f.Delete(session, "/v1/workspaces/"+ws+"/tokens/"+t.ID).Status).To(Equal(http.StatusNoContent))
		ExpectError(twin.Get(t.Secret, "/v1/forms"), http.StatusUnauthorized)
		ExpectError(f.Get(t.Secret, "/v1/forms"), http.StatusUnauthorized)

		By("a token made on the second working on the first at once")
		u := twin.TokenWith(session, ws, "forms:read")
		Expect(f.Get(u.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
		Expect(twin.Delete(session, "/v1/workspaces/"+ws+"/tokens/"+u.ID).Status).To(Equal(http.StatusNoContent))
		ExpectError(f.Get(u.Secret, "/v1/forms"), http.StatusUnauthorized)
	})

	It("stops an expired token", func() {
		expires := time.Now().Add(4 * time.Second).UTC()
		t := f.CreateToken(session, ws, map[string]any{"name": "short-lived", "scopes": []string{"forms:read"},
			"expiresAt": expires.Format(time.RFC3339Nano)})
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK), "before it expires")
		Eventually(func() int { return f.Get(t.Secret, "/v1/forms").Status }).
			WithTimeout(20 * time.Second).WithPolling(250 * time.Millisecond).Should(Equal(http.StatusUnauthorized))
		Expect(time.Now()).To(BeTemporally(">=", expires), "refused only from its expiry on")
		r := f.Get(session, "/v1/workspaces/"+ws+"/tokens")
		Expect(r.Array("tokens")).To(ContainElement(HaveKeyWithValue("id", t.ID)), "an expired token stays listed until deleted")
	})

	It("deletes every token of an account its mailbox's owner takes back with a password reset", func() {
		email := UniqueEmail("claimed")
		squatter := f.Register(email, "the squatter's passphrase")
		squatted := f.Workspaces(squatter)[0]["id"].(string)
		kept := f.TokenWith(squatter, squatted, allScopes...)
		Expect(f.Get(kept.Secret, "/v1/workspaces").Status).To(Equal(http.StatusOK))
		f.Mail.WaitForMail(email) // the account verification mail, left unopened

		Expect(f.Post("", "/agent/auth/password-reset", map[string]any{"email": email}).Status).To(Equal(http.StatusAccepted))
		done := f.FollowLink(Link(f.Mail.WaitForMail(email)), "password", DefaultPassword)
		Expect(done.Status).To(Equal(http.StatusOK), "%s", done)

		ExpectError(f.Get(kept.Secret, "/v1/workspaces"), http.StatusUnauthorized)
		owner := f.Register(email, DefaultPassword)
		r := f.Get(owner, "/v1/workspaces/"+squatted+"/tokens")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Array("tokens")).To(BeEmpty())
	})

	It("takes a token as a bearer token only, never in the session cookie", func() {
		t := f.TokenWith(session, ws, "forms:read")
		ExpectError(f.Get("", "/v1/forms", SessionCookie(t.Secret)), http.StatusUnauthorized)
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK))
	})

	It("does not let a token manage tokens, whatever its scopes", func() {
		t := f.TokenWith(session, ws, allScopes...)
		ExpectError(f.Get(t.Secret, "/v1/workspaces/"+ws+"/tokens"), http.StatusForbidden, "use a session")
		ExpectError(f.Post(t.Secret, "/v1/workspaces/"+ws+"/tokens", map[string]any{"name": "minted", "scopes": allScopes}),
			http.StatusForbidden, "use a session")
		ExpectError(f.Delete(t.Secret, "/v1/workspaces/"+ws+"/tokens/"+t.ID), http.StatusForbidden, "use a session")
		Expect(f.Get(t.Secret, "/v1/forms").Status).To(Equal(http.StatusOK), "it is not deleted")
		r := f.Get(session, "/v1/workspaces/"+ws+"/tokens")
		Expect(slices.ContainsFunc(r.Array("tokens"), func(v any) bool { return v.(map[string]any)["name"] == "minted" })).To(BeFalse())
	})
})
