package postgres_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"
)

// An object larger than a chunk is stored in chunks and read back whole,
// one chunk at a time; an object stored whole before chunks still reads.
func TestBuiltinObjectsStoreLargeObjectsInChunks(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	key := newKey(t)
	content := make([]byte, 600<<10+7) // two full chunks and part of a third
	if _, err := rand.Read(content); err != nil {
		t.Fatal(err)
	}
	if err := u.objects.Put(u.ctx, key, bytes.NewReader(content), int64(len(content)), "application/pdf"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	var chunks, largest int
	if err := u.pool.QueryRow(u.ctx, `SELECT count(*), max(length(data)) FROM upload_object_chunks WHERE key = $1`, key).
		Scan(&chunks, &largest); err != nil {
		t.Fatal(err)
	}
	if chunks != 3 || largest != 256<<10 {
		t.Fatalf("%d chunks of at most %d bytes, want 3 of at most 256 KiB", chunks, largest)
	}
	r, size, err := u.objects.Open(u.ctx, key)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || size != int64(len(content)) || !bytes.Equal(got, content) {
		t.Fatalf("read back %d bytes (size %d), %v; want the %d bytes stored", len(got), size, err, len(content))
	}

	// A second upload to the key is refused, and its chunks never mix in.
	if err := u.objects.Put(u.ctx, key, bytes.NewReader(make([]byte, len(content))), int64(len(content)), "application/pdf"); err == nil {
		t.Fatal("a second Put succeeded")
	}
	r, _, _ = u.objects.Open(u.ctx, key)
	if again, _ := io.ReadAll(r); !bytes.Equal(again, content) {
		t.Fatal("the object changed after a refused second Put")
	}

	if err := u.objects.Delete(u.ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := u.pool.QueryRow(u.ctx, `SELECT count(*) FROM upload_object_chunks WHERE key = $1`, key).Scan(&chunks); err != nil || chunks != 0 {
		t.Fatalf("%d chunks left after Delete, %v", chunks, err)
	}

	legacy := newKey(t)
	if _, err := u.pool.Exec(u.ctx, `INSERT INTO upload_objects (key, content_type, size, content) VALUES ($1, 'text/plain', 5, 'hello')`, legacy); err != nil {
		t.Fatal(err)
	}
	r, size, err = u.objects.Open(u.ctx, legacy)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r); string(got) != "hello" || size != 5 {
		t.Fatalf("an object stored whole: %q (%d)", got, size)
	}
}
