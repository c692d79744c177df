package index

import "testing"

func TestSearchRequiresAllTerms(t *testing.T) {
	idx := NewMemIndex(nil)
	_ = idx.Add("t-1", "Login fails after password reset")
	_ = idx.Add("t-2", "Password reset email never arrives")
	got, err := idx.Search("password login")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "t-1" {
		t.Fatalf("Search = %v, want [t-1]", got)
	}
}

func TestClosedIndex(t *testing.T) {
	idx := NewMemIndex(SimpleTokenizer{})
	_ = idx.Close()
	if err := idx.Add("x", "y"); err != ErrClosed {
		t.Fatalf("Add after Close = %v, want ErrClosed", err)
	}
}

func testHelperBuildIndex(docs map[string]string) *MemIndex {
	idx := NewMemIndex(nil)
	for id, text := range docs {
		_ = idx.Add(id, text)
	}
	return idx
}
