module mebo-reference/sets

go 1.25.0

require github.com/arloliu/mebo v1.9.0

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.22 // indirect
	golang.org/x/sys v0.43.0 // indirect
)
