package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/arloliu/mebo/blob"
	"github.com/arloliu/mebo/format"
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
		bytes, err := encode(bc, in, c["options"].(map[string]any))
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

var encodings = map[string]format.EncodingType{
	"raw": format.TypeRaw, "delta": format.TypeDelta, "deltapacked": format.TypeDeltaPacked,
	"gorilla": format.TypeGorilla, "chimp": format.TypeChimp, "alp": format.TypeALP,
}

var codecs = map[string]format.CompressionType{
	"none": format.CompressionNone, "zstd": format.CompressionZstd, "s2": format.CompressionS2, "lz4": format.CompressionLZ4,
}

// encode writes one case's input with its options through the reference encoder.
func encode(c benchCase, in input, options map[string]any) ([]byte, error) {
	startMicros, err := strconv.ParseInt(in.StartTimeMicros, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("startTimeMicros: %w", err)
	}
	start := time.UnixMicro(startMicros)
	tags, _ := options["tags"].(bool)
	bigEndian, _ := options["bigEndian"].(bool)
	expected, err := in.parse()
	if err != nil {
		return nil, err
	}
	tagsOf := func(i int) []string {
		if t := in.Metrics[i].Tags; t != nil {
			return t
		}
		return make([]string, len(expected[i].timestamps))
	}
	o := c.Options
	if c.Kind == "text" {
		opts := []blob.TextEncoderOption{blob.WithTextTimestampEncoding(encodings[o.TimestampEncoding]), blob.WithTextDataCompression(codecs[o.DataCompression]), blob.WithTextTagsEnabled(tags)}
		if bigEndian {
			opts = append(opts, blob.WithTextBigEndian())
		}
		enc, err := blob.NewTextEncoder(start, opts...)
		if err != nil {
			return nil, err
		}
		for i, m := range in.Metrics {
			if err := startText(enc, in.Identifier, m.Name, expected[i].id, len(m.Texts)); err != nil {
				return nil, err
			}
			t := tagsOf(i)
			for j, text := range m.Texts {
				if err := enc.AddDataPoint(expected[i].timestamps[j], text, t[j]); err != nil {
					return nil, err
				}
			}
			if err := enc.EndMetric(); err != nil {
				return nil, err
			}
		}
		return enc.Finish()
	}
	opts := []blob.NumericEncoderOption{
		blob.WithTimestampEncoding(encodings[o.TimestampEncoding]), blob.WithValueEncoding(encodings[o.ValueEncoding]),
		blob.WithTimestampCompression(codecs[o.TimestampCompression]), blob.WithValueCompression(codecs[o.ValueCompression]),
		blob.WithTagsEnabled(tags),
	}
	if bigEndian {
		opts = append(opts, blob.WithBigEndian())
	}
	switch o.Layout {
	case "v2":
		opts = append(opts, blob.WithBlobLayoutV2())
	case "v2-shared":
		opts = append(opts, blob.WithSharedTimestamps())
	}
	enc, err := blob.NewNumericEncoder(start, opts...)
	if err != nil {
		return nil, err
	}
	for i, m := range in.Metrics {
		if in.Identifier == "id" {
			err = enc.StartMetricID(expected[i].id, len(m.Timestamps))
		} else {
			err = enc.StartMetricName(m.Name, len(m.Timestamps))
		}
		if err != nil {
			return nil, err
		}
		values := make([]float64, len(expected[i].bits))
		for j, b := range expected[i].bits {
			values[j] = math.Float64frombits(b)
		}
		if err := enc.AddDataPoints(expected[i].timestamps, values, tagsOf(i)); err != nil {
			return nil, err
		}
		if err := enc.EndMetric(); err != nil {
			return nil, err
		}
	}
	return enc.Finish()
}

func startText(enc *blob.TextEncoder, identifier, name string, id uint64, points int) error {
	if identifier == "id" {
		return enc.StartMetricID(id, points)
	}
	return enc.StartMetricName(name, points)
}
