package io.rangefetch.it.proxy;

/**
 * A failure {@link ShapingProxy#failNext(Fault)} injects into the next GET's response, as S3 or the
 * network between would produce it.
 */
public enum Fault {
  /** The proxy answers {@code 503 SlowDown} itself; the request never reaches the server. */
  SLOW_DOWN_503,
  /**
   * The server's response is forwarded up to half its body (8 KiB if its length is unknown), then the
   * client connection is reset (TCP RST).
   */
  RESET_MID_BODY,
  /**
   * Like {@link #RESET_MID_BODY} but the connection is closed normally: the client sees the body end
   * before its {@code Content-Length}.
   */
  TRUNCATED_BODY
}
