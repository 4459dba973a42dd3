package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/arloliu/mebo/blob"
)

// manifest is testdata/bench/manifest.json (the vectors' manifest schema).
type manifest struct {
	Cases []benchCase `json:"cases"`
}

type benchCase struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	File    string `json:"file"`
	Options struct {
		Input                string `json:"input"`
		Layout               string `json:"layout"`
		TimestampEncoding    string `json:"timestampEncoding"`
		TimestampCompression string `json:"timestampCompression"`
		ValueEncoding        string `json:"valueEncoding"`
		ValueCompression     string `json:"valueCompression"`
		DataCompression      string `json:"dataCompression"`
		Tags                 bool   `json:"tags"`
		BigEndian            bool   `json:"bigEndian"`
	} `json:"options"`
}

// configName names a case as packages/tooling/harness.mjs configName does.
func (c benchCase) configName() string {
	o := c.Options
	if c.Kind == "text" {
		return fmt.Sprintf("text-%s-%s", o.TimestampEncoding, o.DataCompression)
	}
	base := fmt.Sprintf("%s-%s-%s-%s", o.TimestampEncoding, o.TimestampCompression, o.ValueEncoding, o.ValueCompression)
	if o.Layout == "" || o.Layout == "v1" {
		return base
	}
	return base + "-" + o.Layout
}

// input is an input file of the vectors' schema (testdata/vectors/README.md).
type input struct {
	StartTimeMicros string `json:"startTimeMicros"`
	Identifier      string `json:"identifier"`
	Metrics         []struct {
		Name       string   `json:"name"`
		ID         string   `json:"id"`
		Timestamps []string `json:"timestamps"`
		Values     []string `json:"values"`
		Texts      []string `json:"texts"`
		Tags       []string `json:"tags"`
	} `json:"metrics"`
}

// series is one metric's points: values as IEEE-754 bits (numeric) or strings (text).
type series struct {
	id         uint64
	timestamps []int64
	bits       []uint64
	texts      []string
}

type decoded []series

func (in input) parse() (decoded, error) {
	out := make(decoded, len(in.Metrics))
	for i, m := range in.Metrics {
		id, err := strconv.ParseUint(m.ID, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("metric %d id: %w", i, err)
		}
		s := series{id: id, texts: m.Texts}
		for _, t := range m.Timestamps {
			v, err := strconv.ParseInt(t, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("metric %d timestamp: %w", i, err)
			}
			s.timestamps = append(s.timestamps, v)
		}
		for _, v := range m.Values {
			b, err := strconv.ParseUint(v, 16, 64)
			if err != nil {
				return nil, fmt.Errorf("metric %d value: %w", i, err)
			}
			s.bits = append(s.bits, b)
		}
		out[i] = s
	}
	return out, nil
}

func (d decoded) points() int {
	n := 0
	for _, s := range d {
		n += len(s.timestamps)
	}
	return n
}

// materialized is what the timed operation returns: a reader of every metric's points.
type materialized interface {
	DataPointCount(metricID uint64) int
	TimestampAt(metricID uint64, index int) (int64, bool)
}

type result struct {
	material materialized
	value    func(id uint64, i int) (uint64, string)
}

// decoderFor is the timed operation: decode + Materialize of a blob of this kind.
func decoderFor(kind string) func([]byte) (result, error) {
	if kind == "text" {
		return func(bytes []byte) (result, error) {
			d, err := blob.NewTextDecoder(bytes)
			if err != nil {
				return result{}, err
			}
			b, err := d.Decode()
			if err != nil {
				return result{}, err
			}
			m := b.Materialize()
			return result{material: m, value: func(id uint64, i int) (uint64, string) { s, _ := m.ValueAt(id, i); return 0, s }}, nil
		}
	}
	return func(bytes []byte) (result, error) {
		d, err := blob.NewNumericDecoder(bytes)
		if err != nil {
			return result{}, err
		}
		b, err := d.Decode()
		if err != nil {
			return result{}, err
		}
		m := b.Materialize()
		return result{material: m, value: func(id uint64, i int) (uint64, string) { v, _ := m.ValueAt(id, i); return math.Float64bits(v), "" }}, nil
	}
}

// mismatch describes the first difference between a decode and the input, or is empty.
func (r result) mismatch(expected decoded) string {
	wrong := 0
	first := ""
	for _, s := range expected {
		diff := ""
		if n := r.material.DataPointCount(s.id); n != len(s.timestamps) {
			diff = fmt.Sprintf("%d points, expected %d", n, len(s.timestamps))
		}
		for i := 0; diff == "" && i < len(s.timestamps); i++ {
			ts, _ := r.material.TimestampAt(s.id, i)
			bits, text := r.value(s.id, i)
			switch {
			case ts != s.timestamps[i]:
				diff = fmt.Sprintf("timestamp %d is %d, expected %d", i, ts, s.timestamps[i])
			case s.texts != nil && text != s.texts[i]:
				diff = fmt.Sprintf("value %d is %q, expected %q", i, text, s.texts[i])
			case s.texts == nil && bits != s.bits[i]:
				diff = fmt.Sprintf("value %d has bits %016x, expected %016x", i, bits, s.bits[i])
			}
		}
		if diff != "" {
			wrong++
			if first == "" {
				first = fmt.Sprintf("metric %016x: %s", s.id, diff)
			}
		}
	}
	if wrong == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d metrics differ from the input; first: %s", wrong, len(expected), first)
}
