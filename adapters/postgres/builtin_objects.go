package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// objectChunkBytes is the size of the chunks an object is stored in.
const objectChunkBytes = 256 << 10

// BuiltinObjects implements application.ObjectStore in PostgreSQL
// (upload_objects and its upload_object_chunks): the default store, which
// needs no other server and which every process shares. An upload is
// received into a temporary file first, so a slow client holds no database
// connection, then stored in chunks in one transaction; storing and reading
// an object hold one chunk in memory.
type BuiltinObjects struct {
	pool *pgxpool.Pool
	// tempDir holds uploads while they arrive ("" for the system's).
	tempDir string
}

// NewBuiltinObjects builds the store on pool.
func NewBuiltinObjects(pool *pgxpool.Pool) *BuiltinObjects { return &BuiltinObjects{pool: pool} }

// Put implements application.ObjectStore: the object is stored only when
// r holds exactly size bytes, and only when no object is under key (an
// infected one was deleted); application.ErrObjectExists otherwise.
func (b *BuiltinObjects) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	tmp, err := os.CreateTemp(b.tempDir, "formd-object-*")
	if err != nil {
		return err
	}
	defer func() {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
	}()
	n, err := io.Copy(tmp, io.LimitReader(r, size+1))
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("object %s: %d bytes were sent where %d were announced", key, n, size)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO upload_objects (key, content_type, size) VALUES ($1, $2, $3)
			ON CONFLICT (key) DO NOTHING`, key, contentType, size)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return application.ErrObjectExists
		}
		chunk := make([]byte, objectChunkBytes)
		for seq := 0; ; seq++ {
			n, err := io.ReadFull(tmp, chunk)
			if n > 0 {
				if _, err := tx.Exec(ctx, `INSERT INTO upload_object_chunks (key, seq, data) VALUES ($1, $2, $3)`,
					key, seq, chunk[:n]); err != nil {
					return err
				}
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
}

// Open implements application.ObjectStore: the object is read one chunk at
// a time as its reader is read.
func (b *BuiltinObjects) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	var size int64
	var whole []byte // an object stored before chunks
	err := b.pool.QueryRow(ctx, `SELECT size, content FROM upload_objects WHERE key = $1`, key).Scan(&size, &whole)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, domain.ErrNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	if whole != nil {
		return io.NopCloser(bytes.NewReader(whole)), int64(len(whole)), nil
	}
	return &chunkReader{ctx: ctx, pool: b.pool, key: key, left: size}, size, nil
}

// chunkReader reads an object's chunks in order, one query each.
type chunkReader struct {
	ctx  context.Context
	pool *pgxpool.Pool
	key  string
	seq  int
	left int64 // bytes not yet read
	buf  []byte
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.buf) == 0 {
		if c.left == 0 {
			return 0, io.EOF
		}
		err := c.pool.QueryRow(c.ctx, `SELECT data FROM upload_object_chunks WHERE key = $1 AND seq = $2`, c.key, c.seq).Scan(&c.buf)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && len(c.buf) == 0) {
			return 0, io.ErrUnexpectedEOF // deleted while it was read
		}
		if err != nil {
			return 0, err
		}
		c.seq++
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	c.left -= int64(n)
	return n, nil
}

func (c *chunkReader) Close() error { return nil }

// Delete implements application.ObjectStore; its chunks go with it.
func (b *BuiltinObjects) Delete(ctx context.Context, key string) error {
	_, err := b.pool.Exec(ctx, `DELETE FROM upload_objects WHERE key = $1`, key)
	return err
}
