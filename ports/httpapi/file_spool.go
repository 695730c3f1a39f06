package httpapi

import (
	"bytes"
	"io"
	"os"
)

// spoolMemoryBytes is how much of a file part is kept in memory before the
// rest goes to a temporary file: a slow client's parts then hold disk, not
// memory, while they arrive.
const spoolMemoryBytes = 64 << 10

// spool keeps one file part's content: the first spoolMemoryBytes in memory,
// the rest in a temporary file in dir ("" for the system's), removed by
// remove when the request ends.
type spool struct {
	dir  string
	mem  bytes.Buffer
	file *os.File
	size int64
}

func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && s.mem.Len()+len(p) <= spoolMemoryBytes {
		s.size += int64(len(p))
		return s.mem.Write(p)
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "formd-upload-*")
		if err != nil {
			return 0, err
		}
		s.file = f
	}
	n, err := s.file.Write(p)
	s.size += int64(n)
	return n, err
}

// content reads the whole content back into memory.
func (s *spool) content() ([]byte, error) {
	out := make([]byte, 0, s.size)
	out = append(out, s.mem.Bytes()...)
	if s.file == nil {
		return out, nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(out)
	if _, err := io.Copy(buf, s.file); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// remove deletes the temporary file, if there is one.
func (s *spool) remove() {
	if s.file != nil {
		name := s.file.Name()
		_ = s.file.Close()
		_ = os.Remove(name)
		s.file = nil
	}
	s.mem = bytes.Buffer{}
}
