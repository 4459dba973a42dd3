package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// regenerate encodes every case of dir/manifest.json from its input with the
// reference encoder and compares the bytes with the recorded blob (size and
// SHA-256). With write, blobs that differ or are missing are written and the
// manifest's sizes and hashes updated: how testdata/vectors and
// testdata/bench are extended.
func regenerate(dir string, write bool) {
	path := filepath.Join(dir, "manifest.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		fail(err.Error())
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		fail(fmt.Sprintf("%s: %v", path, err))
	}
	var cases []map[string]any
	if err := json.Unmarshal(doc["cases"], &cases); err != nil {
		fail(fmt.Sprintf("%s: cases: %v", path, err))
	}
	same, changed := 0, 0
	for _, c := range cases {
		var bc benchCase
		reparse(c, &bc)
		var in input
		readJSON(filepath.Join(dir, bc.Options.Input), &in)
		p, err := prepare(bc, in)
		if err != nil {
			fail(fmt.Sprintf("%s: %v", bc.Name, err))
		}
		bytes, err := p.encode()
		if err != nil {
			fail(fmt.Sprintf("%s: %v", bc.Name, err))
		}
		sum := sha256.Sum256(bytes)
		hash := hex.EncodeToString(sum[:])
		if hash == c["sha256"] {
			same++
			continue
		}
		changed++
		fmt.Fprintf(os.Stderr, "%s: %d bytes %s, recorded %v bytes %v\n", bc.Name, len(bytes), hash[:12], c["size"], c["sha256"])
		if write {
			if err := os.WriteFile(filepath.Join(dir, bc.File), bytes, 0o644); err != nil {
				fail(err.Error())
			}
			c["size"], c["sha256"] = len(bytes), hash
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %d of %d cases identical to the reference's output now\n", dir, same, same+changed)
	if write && changed > 0 {
		doc["cases"], _ = json.Marshal(cases)
		out, _ := json.MarshalIndent(doc, "", " ")
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			fail(err.Error())
		}
	}
	if !write && changed > 0 {
		os.Exit(1)
	}
}

func reparse(from any, into any) {
	data, _ := json.Marshal(from)
	if err := json.Unmarshal(data, into); err != nil {
		fail(err.Error())
	}
}
