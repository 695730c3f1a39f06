package postgres

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// formd hands PostgreSQL its ids as strings, as the domain holds them. pgx
// has no binary encoding of a string as a uuid: for every uuid and uuid[]
// parameter it first tries the binary format, builds the error (with
// fmt.Errorf), and then writes the parameter as text, several times the
// cost of encoding the bytes directly, on every statement of the hot path
// (see docs/performance.md).
//
// registerUUIDStrings gives conn a uuid type (and its array) that writes a
// string in the binary format directly. A string that is not a uuid falls
// back to the text format as before, where PostgreSQL refuses it with its
// own error.
func registerUUIDStrings(_ context.Context, conn *pgx.Conn) error {
	m := conn.TypeMap()
	element := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidStringCodec{}}
	m.RegisterType(element)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: element}})
	return nil
}

// uuidStringCodec is pgtype.UUIDCodec that also writes a string in the
// binary format.
type uuidStringCodec struct{ pgtype.UUIDCodec }

// PlanEncode implements pgtype.Codec.
func (c uuidStringCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(string); ok && format == pgtype.BinaryFormatCode {
		return encodeUUIDString{}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

type encodeUUIDString struct{}

// Encode implements pgtype.EncodePlan. Only the canonical form (36
// characters) is read here; any other string goes as text, for PostgreSQL
// to accept or refuse as it did before (uuid.Parse takes forms, such as a
// urn:uuid: prefix, that PostgreSQL does not).
func (encodeUUIDString) Encode(value any, buf []byte) ([]byte, error) {
	s := value.(string)
	if len(s) != 36 {
		return nil, errors.New("not a uuid in its canonical form")
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return nil, err
	}
	return append(buf, id[:]...), nil
}
