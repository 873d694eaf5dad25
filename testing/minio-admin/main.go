// Command rangefetch-minio-admin adds users and policies to a running MinIO through MinIO's admin API.
// Rangefetch's test fixtures run it (testing/src/main/java/io/rangefetch/testing/server/MinioAdmin.java) to
// give a test MinIO users who may read only some buckets.
//
// Usage:
//
//	rangefetch-minio-admin --endpoint URL [--ca-file FILE] [--timeout DURATION] COMMAND ARGS...
//
// Commands:
//
//	add-user USER            adds USER, enabled, with the secret key $MINIO_ADMIN_USER_SECRET_KEY
//	                         (a user that exists gets that secret key and is enabled)
//	create-policy NAME FILE  creates the policy NAME from the IAM policy (JSON) in FILE, or replaces it
//	attach-policy NAME USER  attaches the policy NAME to USER
//
// The root credentials are $MINIO_ADMIN_ACCESS_KEY and $MINIO_ADMIN_SECRET_KEY. Every secret comes from
// the environment, never from the command line, so that neither ps nor a message quoting the command
// shows one; nothing this program prints contains one.
//
// For an https endpoint, --ca-file names the PEM certificates to trust, and then only those: a test
// server's self-signed certificate is checked like any other, with no way to skip the check. Without it
// the system's roots are trusted.
//
// MinIO's admin API is why this is a Go program: MinIO encrypts the bodies of some admin requests (a new
// user's secret key, for one) with the root secret key (sio-go with an Argon2id-derived key), which the
// admin library madmin-go speaks and no Java library does.
//
// Exit status: 0 when the command succeeded, 1 when it failed (the server refused it, or could not be
// reached in time), 2 when the command line or the environment is wrong.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/minio/madmin-go/v3"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

const (
	name = "rangefetch-minio-admin"

	envAccessKey     = "MINIO_ADMIN_ACCESS_KEY"
	envSecretKey     = "MINIO_ADMIN_SECRET_KEY"
	envUserSecretKey = "MINIO_ADMIN_USER_SECRET_KEY"

	usageText = `usage: ` + name + ` --endpoint URL [--ca-file FILE] [--timeout DURATION] COMMAND ARGS...

commands:
  add-user USER            add USER, enabled, with the secret key $` + envUserSecretKey + `
  create-policy NAME FILE  create (or replace) the policy NAME from the IAM policy JSON in FILE
  attach-policy NAME USER  attach the policy NAME to USER

environment:
  ` + envAccessKey + `, ` + envSecretKey + `  the root credentials (required)
  ` + envUserSecretKey + `  the new user's secret key (add-user only)

options:
`
)

// usageError is a mistake in the command line or the environment: exit status 2, and a pointer to -h.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run carries out the command in args and returns the exit status.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprint(stderr, usageText)
		flags.PrintDefaults()
	}
	endpoint := flags.String("endpoint", "", "the server, as http://HOST:PORT or https://HOST:PORT (required)")
	caFile := flags.String("ca-file", "", "PEM `file` of the certificates to trust for an https endpoint, instead of the system's roots")
	timeout := flags.Duration("timeout", 30*time.Second, "give up after this `duration`, retries included")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2 // the flag package has printed the problem and the usage
	}

	err := execute(flags.Args(), *endpoint, *caFile, *timeout, getenv, stdout)
	var usage usageError
	switch {
	case err == nil:
		return 0
	case len(args) == 0:
		flags.Usage()
		return 2
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "%s: %s (%s -h for help)\n", name, usage.msg, name)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %s\n", name, err)
		return 1
	}
}

// execute checks the command line and the environment, then sends the command to the server.
func execute(args []string, endpoint, caFile string, timeout time.Duration, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("no command")
	}
	command, operands := args[0], args[1:]
	want := map[string][]string{
		"add-user":      {"USER"},
		"create-policy": {"NAME", "FILE"},
		"attach-policy": {"NAME", "USER"},
	}
	names, known := want[command]
	if !known {
		return usagef("unknown command %q", command)
	}
	if len(operands) != len(names) {
		return usagef("want %s %s", command, strings.Join(names, " "))
	}
	if i := slices.Index(operands, ""); i >= 0 {
		return usagef("%s: %s is empty", command, names[i])
	}
	if timeout <= 0 {
		return usagef("--timeout must be positive, not %s", timeout)
	}
	server, secure, err := parseEndpoint(endpoint)
	if err != nil {
		return err
	}
	if caFile != "" && !secure {
		return usagef("--ca-file is for an https endpoint, and %s is not one", endpoint)
	}
	accessKey, secretKey := getenv(envAccessKey), getenv(envSecretKey)
	if accessKey == "" || secretKey == "" {
		return usagef("$%s and $%s must hold the root credentials", envAccessKey, envSecretKey)
	}

	// everything the command needs is read before the first request, so that no mistake of ours
	// costs a round trip
	var userSecretKey string
	var policy []byte
	switch command {
	case "add-user":
		if userSecretKey = getenv(envUserSecretKey); userSecretKey == "" {
			return usagef("add-user: $%s must hold the new user's secret key", envUserSecretKey)
		}
	case "create-policy":
		if policy, err = os.ReadFile(operands[1]); err != nil {
			return fmt.Errorf("create-policy %s: %w", operands[0], err)
		}
		if !json.Valid(policy) {
			return fmt.Errorf("create-policy %s: %s does not hold JSON", operands[0], operands[1])
		}
	}

	transport, err := newTransport(secure, caFile)
	if err != nil {
		return err
	}
	client, err := madmin.NewWithOptions(server, &madmin.Options{
		Creds:     credentials.NewStaticV4(accessKey, secretKey, ""),
		Secure:    secure,
		Transport: transport,
	})
	if err != nil {
		return fmt.Errorf("endpoint %s: %w", endpoint, err)
	}
	client.SetAppInfo(name, "1")

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var done string
	switch command {
	case "add-user":
		err = client.AddUser(ctx, operands[0], userSecretKey)
		done = fmt.Sprintf("added user %s", operands[0])
	case "create-policy":
		err = client.AddCannedPolicy(ctx, operands[0], policy)
		done = fmt.Sprintf("created policy %s", operands[0])
	case "attach-policy":
		_, err = client.AttachPolicy(ctx, madmin.PolicyAssociationReq{Policies: []string{operands[0]}, User: operands[1]})
		done = fmt.Sprintf("attached policy %s to user %s", operands[0], operands[1])
	}
	if err != nil {
		return fmt.Errorf("%s %s: %s", command, strings.Join(operands, " "), explain(err, timeout, transport))
	}
	fmt.Fprintln(stdout, done)
	return nil
}

// parseEndpoint splits http(s)://HOST:PORT into the HOST:PORT madmin-go wants and whether it is https.
func parseEndpoint(endpoint string) (server string, secure bool, err error) {
	if endpoint == "" {
		return "", false, usagef("--endpoint is required")
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", false, usagef("--endpoint %q is not a URL: %v", endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", false, usagef("--endpoint %q: the scheme must be http or https", endpoint)
	}
	if u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false, usagef("--endpoint %q: want %s://HOST[:PORT] and nothing more", endpoint, u.Scheme)
	}
	return u.Host, u.Scheme == "https", nil
}

// newTransport is the HTTP transport to the server: for https, trusting exactly the certificates in
// caFile if given, else the system's roots.
func newTransport(secure bool, caFile string) (*recordingTransport, error) {
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConnsPerHost:   4,
		// the admin API's bodies are small, and the secret ones encrypted: compression gains nothing
		DisableCompression: true,
	}
	if secure {
		config := &tls.Config{MinVersion: tls.VersionTLS12}
		if caFile != "" {
			pem, err := os.ReadFile(caFile)
			if err != nil {
				return nil, fmt.Errorf("--ca-file: %w", err)
			}
			roots := x509.NewCertPool()
			if !roots.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--ca-file: no PEM certificate in %s", caFile)
			}
			config.RootCAs = roots
		}
		transport.TLSClientConfig = config
	}
	return &recordingTransport{next: transport}, nil
}

// recordingTransport remembers the last error of a request that got no answer. madmin-go retries those
// (a refused connection aside) until its context ends and then reports only that the context ended;
// the last error says why, e.g. that the server's certificate is not trusted.
type recordingTransport struct {
	next http.RoundTripper

	mu      sync.Mutex
	lastErr error
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.mu.Lock()
		t.lastErr = err
		t.mu.Unlock()
	}
	return resp, err
}

func (t *recordingTransport) lastError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastErr
}

// explain says why a request failed: the server's error and its code, or why no answer came.
func explain(err error, timeout time.Duration, transport *recordingTransport) string {
	var refused madmin.ErrorResponse
	if errors.As(err, &refused) {
		if refused.Code == "" {
			return refused.Message
		}
		return fmt.Sprintf("%s (%s)", refused.Message, refused.Code)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		if last := transport.lastError(); last != nil {
			return fmt.Sprintf("no answer within %s; the last attempt failed: %v", timeout, last)
		}
		return fmt.Sprintf("no answer within %s", timeout)
	}
	return err.Error()
}
