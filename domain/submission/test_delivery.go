package submission

import (
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// TestMessage is the sample value a test of an integration sends, so
// whoever reads it knows no one submitted anything.
const TestMessage = "This is a test from formd"

// TestFields are the sample fields of a test delivery, in place of a
// submission's: one "message" field saying it is a test.
func TestFields() []Field { return []Field{{Name: "message", Value: TestMessage}} }

// TestDelivery is the delivery a test of the form's integration in queues:
// of the kind a submission would queue for it, to the URL it has now. A
// disabled integration may be tested (its owner checks it before turning
// it on), but one without its target cannot, nor a type formd does not
// send to yet.
func TestDelivery(in form.Integration) (Planned, error) {
	var kind string
	switch in.Type {
	case form.IntegrationWebhook:
		kind = delivery.KindWebhook
	case form.IntegrationSlack:
		kind = delivery.KindSlack
	case form.IntegrationDiscord:
		kind = delivery.KindDiscord
	default:
		return Planned{}, domain.Invalid("type", "%s integrations are not sent yet, so they cannot be tested", in.Type)
	}
	if in.TargetURL == "" {
		return Planned{}, domain.Invalid("targetUrl", "targetUrl is required to test a %s integration", in.Type)
	}
	return Planned{Kind: kind, Target: delivery.WebhookTarget(in.TargetURL), WebhookURL: in.TargetURL, Integration: in.Type}, nil
}
