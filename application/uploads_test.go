package application

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// The upload keys of these tests.
const (
	testKey  = "upl_0123456789abcdef0123456789abcdef"
	otherKey = "upl_fedcba9876543210fedcba9876543210"
)

// pdf is a 9-byte file that sniffs as a PDF.
const pdf = "%PDF-1.4\n"

const (
	testLinkTTL        = 48 * time.Hour
	testReservationTTL = 30 * time.Minute
)

var testNow = fixedClock{}.Now()

// uploadFixture is an intake on in-memory stores.
type uploadFixture struct {
	reservations *memReservations
	objects      *memObjects
	intake       *UploadIntake
}

func newUploadFixture(scanner MalwareScanner) uploadFixture {
	f := uploadFixture{reservations: &memReservations{}, objects: &memObjects{}}
	f.intake = NewUploadIntake(prefixSniffer{}, f.reservations, f.objects, plainLinks{}, fixedClock{}, slog.New(slog.DiscardHandler),
		UploadSettings{Scanner: scanner, ReservationTTL: testReservationTTL, LinkTTL: testLinkTTL})
	return f
}

// pendingPDF is key reserved for form-1 as a 9-byte PDF, unexpired, not
// scanned yet.
func pendingPDF(key string) UploadReservation {
	return UploadReservation{Key: key, FormID: "form-1", Name: "cv.pdf", DeclaredType: "application/pdf", Size: 9,
		ReservedAt: testNow.Add(-time.Minute), ExpiresAt: testNow.Add(time.Hour)}
}

// with stores the reservation and, unless content is nil, its object.
func (f uploadFixture) with(t *testing.T, r UploadReservation, content []byte) uploadFixture {
	t.Helper()
	if err := f.reservations.Reserve(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if content != nil {
		if err := f.objects.Put(context.Background(), r.Key, strings.NewReader(string(content)), int64(len(content)), r.DeclaredType); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f uploadFixture) stored(key string) (UploadReservation, bool) {
	f.reservations.mu.Lock()
	defer f.reservations.mu.Unlock()
	r, ok := f.reservations.byID[key]
	return r, ok
}

func (f uploadFixture) hasObject(key string) bool {
	f.objects.mu.Lock()
	defer f.objects.mu.Unlock()
	_, ok := f.objects.content[key]
	return ok
}

// Each field holding an upload key leaves the forwarded fields and becomes
// a file in the state its reservation is in for this form.
func TestResolveKeysTurnsUploadKeysIntoFiles(t *testing.T) {
	used := pendingPDF(testKey)
	used.Scan, used.StoredSize, used.ConsumedBy = ScanStateClean, 9, "sub-0"
	expired := pendingPDF(testKey)
	expired.ExpiresAt = testNow
	otherForm := pendingPDF(testKey)
	otherForm.FormID = "form-2"
	scannedClean := pendingPDF(testKey)
	scannedClean.Scan, scannedClean.StoredSize, scannedClean.Detected = ScanStateClean, 9, []string{"application/pdf", "application/octet-stream"}
	tests := []struct {
		name    string
		fixture func(t *testing.T) uploadFixture
		want    submission.KeyState
		// check looks at what the intake left behind.
		check func(t *testing.T, f uploadFixture)
	}{
		{"an unknown key", func(t *testing.T) uploadFixture { return newUploadFixture(scanFake{}) }, submission.KeyUnknown, nil},
		{"a key of another form", func(t *testing.T) uploadFixture {
			return newUploadFixture(scanFake{}).with(t, otherForm, []byte(pdf))
		}, submission.KeyUnknown, func(t *testing.T, f uploadFixture) {
			if r, _ := f.stored(testKey); r.Scan != ScanPending {
				t.Errorf("another form's object was scanned: %+v", r)
			}
		}},
		{"a used key", func(t *testing.T) uploadFixture { return newUploadFixture(scanFake{}).with(t, used, []byte(pdf)) }, submission.KeyUsed, nil},
		{"an expired key", func(t *testing.T) uploadFixture { return newUploadFixture(scanFake{}).with(t, expired, []byte(pdf)) }, submission.KeyExpired, nil},
		{"nothing uploaded", func(t *testing.T) uploadFixture {
			return newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), nil)
		},
			submission.KeyNotUploaded, nil},
		{"an infected object", func(t *testing.T) uploadFixture {
			return newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte("%PDF-"+infectedMarker))
		}, submission.KeyInfected, func(t *testing.T, f uploadFixture) {
			if f.hasObject(testKey) {
				t.Error("the infected object was not deleted")
			}
			if r, _ := f.stored(testKey); r.Scan != ScanStateInfected || r.Signature != "Eicar-Test-Signature" {
				t.Errorf("reservation %+v: want the infected verdict recorded", r)
			}
		}},
		{"a scanner error", func(t *testing.T) uploadFixture {
			return newUploadFixture(scanFake{err: errors.New("clamd: connection refused")}).with(t, pendingPDF(testKey), []byte(pdf))
		}, submission.KeyUnscanned, func(t *testing.T, f uploadFixture) {
			if r, _ := f.stored(testKey); r.Scan != ScanPending || !f.hasObject(testKey) {
				t.Errorf("reservation %+v: an object the scanner failed on keeps no verdict and stays", r)
			}
		}},
		{"no scanner", func(t *testing.T) uploadFixture {
			return newUploadFixture(nil).with(t, pendingPDF(testKey), []byte(pdf))
		},
			submission.KeyUnscanned, nil},
		{"an object of another size", func(t *testing.T) uploadFixture {
			return newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte(pdf+"\n"))
		}, submission.KeyWrongSize, nil},
		{"a clean object scanned now", func(t *testing.T) uploadFixture {
			return newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte(pdf))
		}, submission.KeyUsable, func(t *testing.T, f uploadFixture) {
			if r, _ := f.stored(testKey); r.Scan != ScanStateClean || r.StoredSize != 9 || !slices.Equal(r.Detected, []string{"application/pdf", "application/octet-stream"}) {
				t.Errorf("reservation %+v: want the clean verdict and the sniffed type recorded", r)
			}
		}},
		{"a clean object scanned before, with no scanner now", func(t *testing.T) uploadFixture {
			return newUploadFixture(nil).with(t, scannedClean, []byte(pdf))
		}, submission.KeyUsable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.fixture(t)
			fields := []submission.Field{{Name: "message", Value: "hi"}, {Name: "cv", Value: testKey}}
			got, err := f.intake.resolveKeys(context.Background(), "form-1", fields)
			if err != nil {
				t.Fatalf("resolveKeys: %v", err)
			}
			if !slices.Equal(got.fields, fields[:1]) {
				t.Errorf("forwarded fields %+v, want the key's field taken out", got.fields)
			}
			if len(got.files) != 1 || got.files[0].Field != "cv" || got.files[0].Key != testKey || got.files[0].Content != nil {
				t.Fatalf("files %+v, want one file of field cv named by its key", got.files)
			}
			file := got.files[0]
			if file.KeyState != tt.want {
				t.Errorf("key state %d, want %d", file.KeyState, tt.want)
			}
			if tt.want == submission.KeyUsable {
				if file.Name != "cv.pdf" || file.Size != 9 || file.Type() != "application/pdf" {
					t.Errorf("file %+v: want the reservation's name and size and the sniffed type", file)
				}
				want := []ConsumedUpload{{Key: testKey, FormID: "form-1", LinksExpire: testNow.Add(testLinkTTL)}}
				if !slices.Equal(got.uploads, want) {
					t.Errorf("uploads %+v, want %+v", got.uploads, want)
				}
			} else if len(got.uploads) != 0 {
				t.Errorf("uploads %+v: an unusable key is consumed by nothing", got.uploads)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
		})
	}
}

// One object serves one file: a key named twice is used the second time.
func TestResolveKeysUsesAKeyOnce(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte(pdf))
	got, err := f.intake.resolveKeys(context.Background(), "form-1", []submission.Field{{Name: "a", Value: testKey}, {Name: "b", Value: testKey}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.fields) != 0 || len(got.files) != 2 || got.files[0].KeyState != submission.KeyUsable || got.files[1].KeyState != submission.KeyUsed ||
		got.files[1].Field != "b" || len(got.uploads) != 1 {
		t.Fatalf("resolved %+v: want the first usable, the second used, one upload", got)
	}
}

func TestResolveKeysLeavesAPostWithoutKeysAlone(t *testing.T) {
	fields := []submission.Field{{Name: "message", Value: "upl_not-a-key"}}
	got, err := newUploadFixture(scanFake{}).intake.resolveKeys(context.Background(), "form-1", fields)
	if err != nil || !slices.Equal(got.fields, fields) || len(got.files) != 0 || len(got.uploads) != 0 {
		t.Fatalf("resolveKeys = %+v, %v", got, err)
	}
}

// uploadsEntitled grants every feature.
type uploadsEntitled struct{}

func (uploadsEntitled) Has(context.Context, string, string) (bool, error) { return true, nil }

func (uploadsEntitled) PlanOf(context.Context, string) (account.Plan, error) {
	return account.PlanPro, nil
}

// uploadForm is liveForm taking uploads.
func uploadForm() FormRecord {
	f := liveForm(1, "example.com")
	f.Settings.UploadsEnabled = true
	return f
}

// takenStore refuses every commit as the database does when another
// submission consumed the key first.
type takenStore struct{ fakeStore }

func (s *takenStore) Accept(context.Context, AcceptedSubmission) (Acceptance, error) {
	return Acceptance{}, &UploadUnavailableError{Key: testKey}
}

func uploadSubmitHandler(store SubmissionStore, intake *UploadIntake) SubmitCommand {
	f := uploadForm()
	return NewSubmitHandler(&fakeForms{cached: f, fresh: f}, store, uploadsEntitled{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{},
		noFloods{}, testQuotas, NopMetrics{}, noCaptchas(), noSpamChecks(), intake, newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
}

func postWithKey(key string) Submit {
	p := post("https://example.com")
	p.Fields = append(p.Fields, submission.Field{Name: "attachment", Value: key})
	return p
}

// postWithPart is a multipart post carrying one file part.
func postWithPart(name, declared string, content []byte) Submit {
	p := post("https://example.com")
	p.Files = []UploadedFile{{File: submission.File{Field: "attachment", Name: name, DeclaredType: declared, Size: int64(len(content))},
		Content: content}}
	return p
}

// A server with a malware scanner scans multipart attachments as it scans
// uploaded objects: an infected part, or one the scanner could not scan
// (failing closed), is refused at the uploads gate and nothing is accepted.
func TestSubmitScansMultipartParts(t *testing.T) {
	for name, tt := range map[string]struct {
		scanner MalwareScanner
		content string
		want    string // a part of the refusal; empty: accepted
	}{
		"a clean part":           {scanFake{}, "just text", ""},
		"an infected part":       {scanFake{}, "X5O!P%@AP " + infectedMarker, "the malware scanner found it infected"},
		"a scanner that is down": {scanFake{err: errors.New("clamd: connection refused")}, "just text", "could not be scanned for malware"},
		"no scanner configured":  {nil, "X5O!P%@AP " + infectedMarker, ""},
	} {
		t.Run(name, func(t *testing.T) {
			store := &fakeStore{}
			_, err := uploadSubmitHandler(store, newUploadFixture(tt.scanner).intake).Handle(context.Background(),
				postWithPart("notes.txt", "text/plain", []byte(tt.content)))
			if tt.want == "" {
				if err != nil || len(store.accepted) != 1 {
					t.Fatalf("Handle: %v, %d accepted; want accepted", err, len(store.accepted))
				}
				return
			}
			var rejected *SubmissionRejected
			if !errors.As(err, &rejected) || rejected.Gate != submission.GateUploads || !strings.Contains(rejected.Response.Message, tt.want) ||
				!strings.Contains(rejected.Response.Message, `"attachment"`) {
				t.Fatalf("Handle: %v, want a refusal at the uploads gate saying %q", err, tt.want)
			}
			if len(store.accepted) != 0 {
				t.Errorf("accepted %d submissions", len(store.accepted))
			}
		})
	}
}

// A multipart part declared as a page, an image browsers run scripts in or
// a script is refused whatever its name, and never sealed to be mailed.
func TestSubmitRefusesPartsDeclaredAsScripts(t *testing.T) {
	for _, declared := range []string{"text/html", "image/svg+xml", "application/javascript", "text/ecmascript", "text/css"} {
		store := &fakeStore{}
		_, err := uploadSubmitHandler(store, newUploadFixture(scanFake{}).intake).Handle(context.Background(),
			postWithPart("notes.txt", declared, []byte("hello <script>alert(1)</script>")))
		var rejected *SubmissionRejected
		if !errors.As(err, &rejected) || rejected.Gate != submission.GateUploads ||
			!strings.Contains(rejected.Response.Message, "its declared type ("+declared+") is not a type formd accepts") {
			t.Errorf("%s: Handle: %v, want a refusal of the declared type at the uploads gate", declared, err)
		}
		if len(store.accepted) != 0 {
			t.Errorf("%s: accepted %d submissions", declared, len(store.accepted))
		}
	}
}

// A submission naming a clean upload key is accepted: the sealed payload
// describes the file by its key, never its content, the key is not a
// forwarded field, and the commit is told to consume it.
func TestSubmitWithACleanUploadKey(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte(pdf))
	store := &fakeStore{}
	out, err := uploadSubmitHandler(store, f.intake).Handle(context.Background(), postWithKey(testKey))
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if len(store.accepted) != 1 {
		t.Fatalf("accepted %d submissions", len(store.accepted))
	}
	a := store.accepted[0]
	want := []ConsumedUpload{{Key: testKey, FormID: "form-1", LinksExpire: testNow.Add(testLinkTTL)}}
	if !slices.Equal(a.Uploads, want) {
		t.Errorf("uploads %+v, want %+v", a.Uploads, want)
	}
	p, err := decodePayload(a.Payload.Ciphertext)
	if err != nil {
		t.Fatal(err)
	}
	wantAttachment := Attachment{Field: "attachment", Name: "cv.pdf", Type: "application/pdf", Size: 9, Key: testKey, LinksExpire: testNow.Add(testLinkTTL)}
	if len(p.Attachments) != 1 || p.Attachments[0].Content != nil || p.Attachments[0].Key != wantAttachment.Key ||
		p.Attachments[0].Name != wantAttachment.Name || p.Attachments[0].Type != wantAttachment.Type || p.Attachments[0].Size != 9 ||
		p.Attachments[0].Field != "attachment" || !p.Attachments[0].LinksExpire.Equal(wantAttachment.LinksExpire) {
		t.Errorf("sealed attachments %+v, want %+v", p.Attachments, wantAttachment)
	}
	for _, field := range p.Fields {
		if field.Name == "attachment" || strings.Contains(field.Value, testKey) {
			t.Errorf("the upload key is a forwarded field: %+v", p.Fields)
		}
	}
	if strings.Contains(string(a.Payload.Ciphertext), "PDF-1.4") {
		t.Error("the object's content was sealed with the payload")
	}
	if _, ok := out.Response.Body.Data["attachment"]; ok {
		t.Errorf("the response echoes the upload key: %+v", out.Response.Body.Data)
	}
}

// The commit finding the key consumed meanwhile refuses the submission at
// the uploads gate, as a 400 (no Retry-After).
func TestSubmitRefusedWhenTheCommitFindsTheKeyTaken(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte(pdf))
	_, err := uploadSubmitHandler(&takenStore{}, f.intake).Handle(context.Background(), postWithKey(testKey))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != submission.GateUploads || !rejected.Until.IsZero() || rejected.Response.Success {
		t.Fatalf("Handle: %v, want a refusal at the uploads gate", err)
	}
	if !strings.Contains(rejected.Response.Message, `"attachment"`) || !strings.Contains(rejected.Response.Message, "already used") {
		t.Errorf("message %q: want it to name the field and say the key was used", rejected.Response.Message)
	}
}

// The gates refuse an unusable key before anything is committed.
func TestSubmitRefusesAnUnusableKeyAtTheUploadsGate(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), []byte("%PDF-"+infectedMarker))
	store := &fakeStore{}
	_, err := uploadSubmitHandler(store, f.intake).Handle(context.Background(), postWithKey(testKey))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != submission.GateUploads || !strings.Contains(rejected.Response.Message, "infected") {
		t.Fatalf("Handle: %v, want a refusal at the uploads gate saying the file is infected", err)
	}
	if len(store.accepted) != 0 {
		t.Errorf("committed %d submissions", len(store.accepted))
	}
}

// A dry run reports the uploads gate and commits nothing.
func TestADryRunReportsTheUploadsGate(t *testing.T) {
	for name, tt := range map[string]struct {
		reservation UploadReservation
		outcome     string
	}{
		"a clean key": {pendingPDF(testKey), submission.OutcomePassed},
		"a used key":  {func() UploadReservation { r := pendingPDF(testKey); r.ConsumedBy = "sub-0"; return r }(), submission.OutcomeFailed},
	} {
		t.Run(name, func(t *testing.T) {
			f := newUploadFixture(scanFake{}).with(t, tt.reservation, []byte(pdf))
			store := &fakeStore{}
			cmd := postWithKey(testKey)
			cmd.DryRun = true
			out, err := uploadSubmitHandler(store, f.intake).Handle(context.Background(), cmd)
			var rejected *SubmissionRejected
			if errors.As(err, &rejected) {
				out.Response, err = rejected.Response, nil
			}
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			var gate *GateResult
			for i := range out.Response.Gates {
				if out.Response.Gates[i].Gate == submission.GateUploads {
					gate = &out.Response.Gates[i]
				}
			}
			if gate == nil || gate.Outcome != tt.outcome {
				t.Errorf("gates %+v, want the uploads gate %s", out.Response.Gates, tt.outcome)
			}
			if len(store.accepted) != 0 {
				t.Errorf("a dry run committed %d submissions", len(store.accepted))
			}
		})
	}
}

// formsByKey knows one form by its access key.
type formsByKey struct {
	key string
	rec FormRecord
}

func (f formsByKey) FormByAccessKey(_ context.Context, hash []byte, _ bool) (FormRecord, error) {
	if string(hash) != string(HashSecret(f.key)) {
		return FormRecord{}, domain.ErrNotFound
	}
	return f.rec, nil
}

func (f formsByKey) FormByID(_ context.Context, id string) (FormRecord, error) {
	if id != f.rec.ID {
		return FormRecord{}, domain.ErrNotFound
	}
	return f.rec, nil
}

func reserveHandler(f uploadFixture, rec FormRecord) *ReserveUploadHandler {
	return NewReserveUploadHandler(formsByKey{key: "key", rec: rec}, uploadsEntitled{}, f.reservations, plainLinks{}, f.intake, fixedClock{})
}

func TestReserveUploadRefusals(t *testing.T) {
	good := ReserveUpload{AccessKey: "key", Name: "cv.pdf", Type: "application/pdf", Size: 9, Origin: "https://example.com"}
	disabled := uploadForm()
	disabled.Settings.UploadsEnabled = false
	tests := []struct {
		name    string
		scanner MalwareScanner
		form    FormRecord
		change  func(*ReserveUpload)
		invalid string // the field of an InvalidInputError
		message string // or the message of a ForbiddenError
	}{
		{"no scanner", nil, uploadForm(), func(*ReserveUpload) {}, "", MsgUploadsNeedScanner},
		{"no access key", scanFake{}, uploadForm(), func(q *ReserveUpload) { q.AccessKey = "" }, "access_key", ""},
		{"an unknown access key", scanFake{}, uploadForm(), func(q *ReserveUpload) { q.AccessKey = "other" }, "access_key", ""},
		{"no name", scanFake{}, uploadForm(), func(q *ReserveUpload) { q.Name = "" }, "name", ""},
		{"no size", scanFake{}, uploadForm(), func(q *ReserveUpload) { q.Size = 0 }, "size", ""},
		{"a type that is not one", scanFake{}, uploadForm(), func(q *ReserveUpload) { q.Type = ";" }, "type", ""},
		{"uploads disabled", scanFake{}, disabled, func(*ReserveUpload) {}, "", submission.MsgUploadsDisabled},
		{"a blocked extension", scanFake{}, uploadForm(), func(q *ReserveUpload) { q.Name, q.Type = "setup.exe", "" }, "", ".exe"},
	}
	// Every name JavaScript, a page or a style sheet goes by is refused as
	// a declared type: a download link on formd's origin must never carry it.
	for _, declared := range []string{"text/javascript", "application/javascript", "application/x-javascript", "text/ecmascript",
		"application/ecmascript", "text/jscript", "text/x-javascript", "text/livescript", "text/css", "image/svg+xml", "text/html",
		"Text/ECMAScript; charset=utf-8"} {
		tests = append(tests, struct {
			name    string
			scanner MalwareScanner
			form    FormRecord
			change  func(*ReserveUpload)
			invalid string
			message string
		}{"declared " + declared, scanFake{}, uploadForm(), func(q *ReserveUpload) { q.Name, q.Type = "notes.txt", declared }, "",
			"is not a type formd accepts"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newUploadFixture(tt.scanner)
			q := good
			tt.change(&q)
			_, err := reserveHandler(f, tt.form).Handle(context.Background(), q)
			var invalid *domain.InvalidInputError
			var forbidden *domain.ForbiddenError
			switch {
			case tt.invalid != "":
				if !errors.As(err, &invalid) || invalid.Field != tt.invalid {
					t.Errorf("Handle: %v, want invalid input in %s", err, tt.invalid)
				}
			case !errors.As(err, &forbidden) || !strings.Contains(forbidden.Message, tt.message):
				t.Errorf("Handle: %v, want a refusal saying %q", err, tt.message)
			}
			if len(f.reservations.byID) != 0 {
				t.Errorf("a refused request reserved %+v", f.reservations.byID)
			}
		})
	}
}

func TestReserveUploadStoresAReservationAndAnswersTheLink(t *testing.T) {
	f := newUploadFixture(scanFake{})
	got, err := reserveHandler(f, uploadForm()).Handle(context.Background(),
		ReserveUpload{AccessKey: "key", Name: "cv.pdf", Type: "Application/PDF; charset=binary", Size: 9, Origin: "https://example.com"})
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	if !submission.IsUploadKey(got.Key) || !got.ExpiresAt.Equal(testNow.Add(testReservationTTL)) || got.MaxBytes != 5<<20 {
		t.Errorf("answer %+v: want an upload key, the expiry and the form's file size limit", got)
	}
	wantTarget, _ := plainLinks{}.UploadTarget(context.Background(), ObjectUpload{Key: got.Key, ContentType: "application/pdf"})
	if got.Upload.Method != "PUT" || got.Upload.URL != wantTarget.URL || got.Upload.Headers["Content-Type"] != "application/pdf" {
		t.Errorf("upload target %+v, want %+v", got.Upload, wantTarget)
	}
	r, ok := f.stored(got.Key)
	want := UploadReservation{Key: got.Key, FormID: "form-1", Name: "cv.pdf", DeclaredType: "application/pdf", Size: 9,
		ReservedAt: testNow, ExpiresAt: testNow.Add(testReservationTTL)}
	if !ok || r.Key != want.Key || r.FormID != want.FormID || r.Name != want.Name || r.DeclaredType != want.DeclaredType ||
		r.Size != want.Size || !r.ReservedAt.Equal(want.ReservedAt) || !r.ExpiresAt.Equal(want.ExpiresAt) || r.Scan != ScanPending {
		t.Errorf("reservation %+v, want %+v", r, want)
	}
}

func receiveHandler(f uploadFixture) *ReceiveObjectHandler {
	return NewReceiveObjectHandler(f.reservations, f.objects, plainLinks{}, f.intake, fixedClock{})
}

func receive(content string, size int64) ReceiveObject {
	return ReceiveObject{Key: testKey, Expires: testNow.Add(time.Hour), Signature: "ok", Size: size, Body: strings.NewReader(content)}
}

func TestReceiveObjectRefusals(t *testing.T) {
	used := pendingPDF(testKey)
	used.ConsumedBy = "sub-0"
	expired := pendingPDF(testKey)
	expired.ExpiresAt = testNow
	badSignature := receive(pdf, 9)
	badSignature.Signature = "forged"
	expiredLink := receive(pdf, 9)
	expiredLink.Expires = testNow
	tests := []struct {
		name        string
		reservation *UploadReservation
		cmd         ReceiveObject
		check       func(error) bool
	}{
		{"a bad signature", ptrTo(pendingPDF(testKey)), badSignature, func(err error) bool { return err == ErrLinkInvalid }},
		{"an expired link", ptrTo(pendingPDF(testKey)), expiredLink, func(err error) bool { return err == ErrLinkInvalid }},
		{"another Content-Length", ptrTo(pendingPDF(testKey)), receive(pdf+"\n", 10), isInvalid("Content-Length")},
		{"no Content-Length", ptrTo(pendingPDF(testKey)), receive(pdf, -1), isInvalid("Content-Length")},
		{"a used key", &used, receive(pdf, 9), isForbidden},
		{"an expired key", &expired, receive(pdf, 9), isForbidden},
		{"a key never reserved", nil, receive(pdf, 9), isForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newUploadFixture(scanFake{})
			if tt.reservation != nil {
				f = f.with(t, *tt.reservation, nil)
			}
			if _, err := receiveHandler(f).Handle(context.Background(), tt.cmd); !tt.check(err) {
				t.Errorf("Handle: %v (%T)", err, err)
			}
			if f.hasObject(testKey) {
				t.Error("a refused upload was stored")
			}
		})
	}
}

func isInvalid(field string) func(error) bool {
	return func(err error) bool {
		var invalid *domain.InvalidInputError
		return errors.As(err, &invalid) && invalid.Field == field
	}
}

func isForbidden(err error) bool {
	var forbidden *domain.ForbiddenError
	return errors.As(err, &forbidden)
}

func TestReceiveObjectStoresAndScans(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), nil)
	got, err := receiveHandler(f).Handle(context.Background(), receive(pdf, 9))
	if err != nil || got.Key != testKey || got.Size != 9 {
		t.Fatalf("Handle = %+v, %v", got, err)
	}
	if !f.hasObject(testKey) {
		t.Fatal("the object was not stored")
	}
	r, _ := f.stored(testKey)
	if r.Scan != ScanStateClean || !r.UploadedAt.Equal(testNow) || r.StoredSize != 9 || len(r.Detected) == 0 || r.Detected[0] != "application/pdf" {
		t.Errorf("reservation %+v: want it uploaded now and scanned clean as a PDF", r)
	}
}

func TestReceiveObjectRefusesAndDeletesAnInfectedObject(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), nil)
	_, err := receiveHandler(f).Handle(context.Background(), receive("%PDF"+infectedMarker, 9))
	var forbidden *domain.ForbiddenError
	if !errors.As(err, &forbidden) || !strings.Contains(forbidden.Message, "Eicar-Test-Signature") {
		t.Fatalf("Handle: %v, want a refusal naming the signature", err)
	}
	if f.hasObject(testKey) {
		t.Error("the infected object was kept")
	}
	if r, _ := f.stored(testKey); r.Scan != ScanStateInfected {
		t.Errorf("reservation %+v: want the infected verdict recorded", r)
	}
}

// consumingReader is a slow upload's body: a submission consumes the key
// while it is still being sent.
type consumingReader struct {
	f    uploadFixture
	body io.Reader
}

func (c *consumingReader) Read(p []byte) (int, error) {
	c.f.reservations.mu.Lock()
	r := c.f.reservations.byID[testKey]
	r.ConsumedBy = "sub-1"
	c.f.reservations.byID[testKey] = r
	c.f.reservations.mu.Unlock()
	return c.body.Read(p)
}

// A second upload to a key never replaces the object a scan passed, even
// one that started before a submission consumed the key.
func TestReceiveObjectNeverReplacesAnObject(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), nil)
	if _, err := receiveHandler(f).Handle(context.Background(), receive(pdf, 9)); err != nil {
		t.Fatal(err)
	}
	second := receive("", 9)
	second.Body = &consumingReader{f: f, body: strings.NewReader("MZ\x90\x00evil!")}
	_, err := receiveHandler(f).Handle(context.Background(), second)
	var forbidden *domain.ForbiddenError
	if !errors.As(err, &forbidden) || forbidden != ErrObjectExists {
		t.Errorf("Handle: %v, want ErrObjectExists", err)
	}
	body, _, err := f.objects.Open(context.Background(), testKey)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(body); string(got) != pdf {
		t.Errorf("the object is now %q: the clean object was replaced", got)
	}
}

func downloadHandler(f uploadFixture) *DownloadObjectHandler {
	return NewDownloadObjectHandler(f.reservations, f.objects, plainLinks{}, fixedClock{})
}

func download() DownloadObject {
	return DownloadObject{Key: testKey, Expires: testNow.Add(time.Hour), Signature: "ok"}
}

// consumedPDF is pendingPDF scanned clean and consumed by a submission.
func consumedPDF(detected ...string) UploadReservation {
	r := pendingPDF(testKey)
	r.Scan, r.StoredSize, r.Detected, r.ConsumedBy, r.LinksExpire = ScanStateClean, 9, detected, "sub-1", testNow.Add(time.Hour)
	return r
}

func TestDownloadObjectRefusals(t *testing.T) {
	badSignature := download()
	badSignature.Signature = "forged"
	expiredLink := download()
	expiredLink.Expires = testNow
	infected := consumedPDF()
	infected.Scan = ScanStateInfected
	unconsumed := consumedPDF()
	unconsumed.ConsumedBy, unconsumed.LinksExpire = "", time.Time{}
	tests := []struct {
		name        string
		reservation *UploadReservation
		content     []byte
		q           DownloadObject
		want        error
	}{
		{"a bad signature", ptrTo(consumedPDF()), []byte(pdf), badSignature, ErrLinkInvalid},
		{"an expired link", ptrTo(consumedPDF()), []byte(pdf), expiredLink, ErrLinkInvalid},
		{"an unconsumed key", &unconsumed, []byte(pdf), download(), domain.ErrNotFound},
		{"an infected object", &infected, []byte(pdf), download(), domain.ErrNotFound},
		{"a reservation cleaned up", nil, nil, download(), domain.ErrNotFound},
		{"an object deleted", ptrTo(consumedPDF()), nil, download(), domain.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newUploadFixture(scanFake{})
			if tt.reservation != nil {
				f = f.with(t, *tt.reservation, tt.content)
			}
			got, err := downloadHandler(f).Handle(context.Background(), tt.q)
			if !errors.Is(err, tt.want) || got.Body != nil {
				t.Errorf("Handle = %+v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestDownloadObjectServesEveryObjectAsBytesUnderASafeName holds that a
// download never carries the file's own type, declared or sniffed: on
// formd's origin a script's type would let a page run it.
func TestDownloadObjectServesEveryObjectAsBytesUnderASafeName(t *testing.T) {
	for name, tt := range map[string]struct {
		declared string
		detected []string
	}{
		"a sniffed pdf":               {"application/pdf", []string{"application/pdf", "application/octet-stream"}},
		"a png":                       {"image/png", []string{"image/png", "application/octet-stream"}},
		"text declared as ecmascript": {"text/ecmascript", []string{"text/plain", "application/octet-stream"}},
		"text declared as css":        {"text/css", []string{"text/plain", "application/octet-stream"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := consumedPDF(tt.detected...)
			r.Name, r.DeclaredType = "../../etc/\x1bcv\n.pdf", tt.declared
			f := newUploadFixture(scanFake{}).with(t, r, []byte(pdf))
			got, err := downloadHandler(f).Handle(context.Background(), download())
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			defer got.Body.Close()
			body, _ := io.ReadAll(got.Body)
			if got.Name != "cv.pdf" || got.ContentType != "application/octet-stream" || got.Size != 9 || string(body) != pdf {
				t.Errorf("Handle = %+v with %q; want cv.pdf, application/octet-stream, 9 bytes", got, body)
			}
			if want := `attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`; got.Disposition != want {
				t.Errorf("Disposition = %q, want %q", got.Disposition, want)
			}
		})
	}
}

func TestAttachmentDisposition(t *testing.T) {
	for name, want := range map[string]string{
		"Résumé \"final\"\r\n.csv": `attachment; filename="R_sum_ _final_.csv"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.csv`,
		`a\b;c=d.txt`:              `attachment; filename="b;c=d.txt"; filename*=UTF-8''b%3Bc%3Dd.txt`,
		"\u0085":                   `attachment; filename="file"; filename*=UTF-8''file`,
		"":                         `attachment; filename="file"; filename*=UTF-8''file`,
	} {
		if got := AttachmentDisposition(name); got != want {
			t.Errorf("AttachmentDisposition(%q) = %q, want %q", name, got, want)
		}
	}
}

// dueReservations are reservations whose DueForCleanup lists due once.
type dueReservations struct {
	*memReservations
	due []string
}

func (d *dueReservations) DueForCleanup(context.Context, time.Time, int) ([]string, error) {
	due := d.due
	d.due = nil
	return due, nil
}

// failingObjects cannot delete one object.
type failingObjects struct {
	*memObjects
	fail string
}

func (f failingObjects) Delete(ctx context.Context, key string) error {
	if key == f.fail {
		return errors.New("storage unavailable")
	}
	return f.memObjects.Delete(ctx, key)
}

func TestCleanUploadsRemovesObjectsThenReservations(t *testing.T) {
	const third = "upl_00000000000000000000000000000003"
	f := newUploadFixture(nil)
	for _, key := range []string{testKey, otherKey, third} {
		f = f.with(t, pendingPDF(key), []byte(pdf))
	}
	kept := pendingPDF("upl_00000000000000000000000000000004")
	f = f.with(t, kept, []byte(pdf))
	reservations := &dueReservations{memReservations: f.reservations, due: []string{testKey, otherKey, third}}
	h := NewCleanUploadsHandler(reservations, failingObjects{memObjects: f.objects, fail: otherKey}, fixedClock{})
	removed, err := h.Handle(context.Background())
	if removed != 2 || err == nil || !strings.Contains(err.Error(), otherKey) {
		t.Fatalf("Handle = %d, %v; want 2 removed and an error naming %s", removed, err, otherKey)
	}
	for _, key := range []string{testKey, third} {
		if _, ok := f.stored(key); ok || f.hasObject(key) {
			t.Errorf("%s: want its object and reservation gone", key)
		}
	}
	if _, ok := f.stored(otherKey); !ok {
		t.Error("the reservation of an object that could not be deleted was forgotten: the next sweep could not find the object")
	}
	if _, ok := f.stored(kept.Key); !ok || !f.hasObject(kept.Key) {
		t.Error("an upload that was not due was removed")
	}
}

// The notification mail lists the download link of each uploaded file and
// attaches only multipart content; a webhook gets a url for uploaded files
// only.
func TestDeliverUploadedFilesAsDownloadLinks(t *testing.T) {
	at := time.Date(2026, 11, 22, 11, 59, 0, 0, time.UTC)
	linksExpire := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	payload, _ := encodePayload(Payload{Recipient: "inbox@example.com", Subject: "New", FormName: "Contact", Webhook: "https://per.example.com/h",
		Fields: []submission.Field{{Name: "message", Value: "hi"}},
		Attachments: []Attachment{
			{Field: "attachment", Name: "notes.pdf", Type: "application/pdf", Size: 9, Content: []byte(pdf)},
			{Field: "cv", Name: "dir/cv.pdf", Type: "application/pdf", Size: 9, Key: testKey, LinksExpire: linksExpire},
		}})
	link, _ := plainLinks{}.DownloadURL(context.Background(), ObjectDownload{Key: testKey, Expires: linksExpire})

	mail := &keptMail{}
	store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: at}}}
	h := NewDeliverHandler(store, plainSealer{}, mail, &sentWebhooks{}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(mail.sent) != 1 {
		t.Fatalf("sent %+v, want one mail", mail.sent)
	}
	m := mail.sent[0]
	if len(m.Attachments) != 1 || m.Attachments[0].Name != "notes.pdf" || string(m.Attachments[0].Content) != pdf ||
		m.Attachments[0].Type != "application/pdf" {
		t.Errorf("mail attachments %+v, want the multipart file only", m.Attachments)
	}
	wantLines := "cv: cv.pdf (application/pdf, 9 bytes)\n  " + link + "\n  The link works until 29 November 2026 12:00 UTC.\n"
	if !strings.Contains(m.Text, "message: hi\n") || !strings.Contains(m.Text, "Files (download links):\n"+wantLines) {
		t.Errorf("mail text %q; want the field and\n%s", m.Text, wantLines)
	}
	if strings.Contains(m.Text, "notes.pdf") {
		t.Errorf("mail text %q lists an attached file as a link", m.Text)
	}

	hooks := &sentWebhooks{}
	store = &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d2", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook, At: at}}}
	h = NewDeliverHandler(store, plainSealer{}, noMail{}, hooks, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(hooks.sent) != 1 {
		t.Fatalf("sent %+v, want one webhook", hooks.sent)
	}
	var body struct {
		Attachments []map[string]any `json:"attachments"`
	}
	if err := json.Unmarshal(hooks.sent[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Attachments) != 2 {
		t.Fatalf("webhook attachments %+v", body.Attachments)
	}
	if _, ok := body.Attachments[0]["url"]; ok {
		t.Errorf("the multipart file has a url: %+v", body.Attachments[0])
	}
	if body.Attachments[1]["url"] != link || body.Attachments[1]["name"] != "dir/cv.pdf" {
		t.Errorf("the uploaded file %+v, want url %s", body.Attachments[1], link)
	}
	if strings.Contains(string(hooks.sent[0].Body), "PDF-1.4") {
		t.Error("the webhook carries file content")
	}
}

// untouchable is a body that must not be read.
type untouchable struct{ read bool }

func (u *untouchable) Read([]byte) (int, error) { u.read = true; return 0, io.ErrUnexpectedEOF }

// A key takes one upload: a second PUT is refused before any of its body is
// read, so re-sending to a used link costs formd nothing.
func TestReceiveObjectRefusesASecondUploadBeforeReadingIt(t *testing.T) {
	f := newUploadFixture(scanFake{}).with(t, pendingPDF(testKey), nil)
	if _, err := receiveHandler(f).Handle(context.Background(), receive(pdf, 9)); err != nil {
		t.Fatal(err)
	}
	body := &untouchable{}
	second := receive("", 9)
	second.Body = body
	if _, err := receiveHandler(f).Handle(context.Background(), second); err != ErrObjectExists {
		t.Fatalf("Handle: %v, want ErrObjectExists", err)
	}
	if body.read {
		t.Fatal("the second upload's body was read")
	}
}

// A payload sealed with a type formd no longer accepts (queued before the
// type was refused) is mailed as bytes, never as a page a mail client runs.
func TestMailAttachmentsNeverCarryATypeFormdRefuses(t *testing.T) {
	payload, _ := encodePayload(Payload{Recipient: "inbox@example.com", Subject: "New", FormName: "Contact",
		Fields: []submission.Field{{Name: "message", Value: "hi"}},
		Attachments: []Attachment{
			{Field: "notes", Name: "notes.txt", Type: "text/html", Size: 8, Content: []byte("<script>")},
			{Field: "photo", Name: "me.png", Type: "image/png", Size: 3, Content: []byte("png")},
		}})
	mail := &keptMail{}
	store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
		Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: testNow}}}
	h := NewDeliverHandler(store, plainSealer{}, mail, &sentWebhooks{}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(mail.sent) != 1 || len(mail.sent[0].Attachments) != 2 {
		t.Fatalf("sent %+v, want one mail with two attachments", mail.sent)
	}
	if got := mail.sent[0].Attachments; got[0].Type != "application/octet-stream" || got[1].Type != "image/png" {
		t.Errorf("attachment types %q and %q, want application/octet-stream and image/png", got[0].Type, got[1].Type)
	}
}
