package io.rangefetch.hadoop;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * A Hadoop 3.3 file system's own credential chain ({@link S3AFileSystem#shareCredentials}: its providers, delegation
 * tokens applied, reference-counted) as an AWS SDK v2 provider. On 3.3 the chain is an SDK v1
 * {@code AWSCredentialsProvider}, read here by reflection so that this module needs no SDK v1 jar to compile (from
 * 3.4.0 S3A's own SDK v2 client sends, and this class is not used). Each resolution asks the chain, which caches and refreshes as it
 * does for S3A's own requests. Thread-safe: the chain is, and the methods are fixed at construction.
 */
final class SharedS3ACredentials implements AwsCredentialsProvider, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedS3ACredentials.class);
    private static final String V1 = "com.amazonaws.auth.";

    private final Object chain;
    private final AwsCredentialsProvider resolver;

    private SharedS3ACredentials(Object chain, AwsCredentialsProvider resolver) {
        this.chain = chain;
        this.resolver = resolver;
    }

    /** A share of {@code fileSystem}'s credentials, held until {@link #close()}. */
    static SharedS3ACredentials share(S3AFileSystem fileSystem) {
        Object chain = fileSystem.shareCredentials("Rangefetch GETs");
        try {
            return new SharedS3ACredentials(chain, v1Resolver(chain));
        } catch (RuntimeException | LinkageError e) {
            closeChain(chain);
            throw e;
        }
    }

    private static AwsCredentialsProvider v1Resolver(Object chain) {
        ClassLoader loader = chain.getClass().getClassLoader();
        Method getCredentials;
        Method accessKeyId;
        Method secretKey;
        Method sessionToken;
        Class<?> sessionCredentials;
        try {
            getCredentials =
                    Class.forName(V1 + "AWSCredentialsProvider", false, loader).getMethod("getCredentials");
            Class<?> credentials = Class.forName(V1 + "AWSCredentials", false, loader);
            accessKeyId = credentials.getMethod("getAWSAccessKeyId");
            secretKey = credentials.getMethod("getAWSSecretKey");
            sessionCredentials = Class.forName(V1 + "AWSSessionCredentials", false, loader);
            sessionToken = sessionCredentials.getMethod("getSessionToken");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "S3A's credential chain (" + chain.getClass().getName()
                            + ") is not the AWS SDK v1 provider of Hadoop 3.3's S3A",
                    e);
        }
        return () -> {
            Object found = invoke(getCredentials, chain);
            String key = (String) invoke(accessKeyId, found);
            String secret = (String) invoke(secretKey, found);
            if (key == null && secret == null) {
                // SDK v1's AnonymousAWSCredentials: an unsigned request, as S3A sends it
                return AnonymousCredentialsProvider.create().resolveCredentials();
            }
            if (sessionCredentials.isInstance(found)) {
                return AwsSessionCredentials.create(key, secret, (String) invoke(sessionToken, found));
            }
            return AwsBasicCredentials.create(key, secret);
        };
    }

    /** Calls an SDK v1 method; its failure (no credentials, an expired token) becomes the SDK v2 client failure. */
    private static Object invoke(Method method, Object target) {
        try {
            return method.invoke(target);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw SdkClientException.create("S3A's credential providers gave no credentials: " + cause, cause);
        } catch (IllegalAccessException e) {
            throw SdkClientException.create("S3A's credential providers cannot be read: " + e, e);
        }
    }

    @Override
    public AwsCredentials resolveCredentials() {
        return resolver.resolveCredentials();
    }

    /** Gives the share back: the chain closes with its last share (the file system holds one). */
    @Override
    public void close() {
        closeChain(chain);
    }

    private static void closeChain(Object chain) {
        if (chain instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // nothing of ours is left to release; S3A's chain logs what its own providers fail to
                LOG.debug("Closing S3A's credential chain failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "SharedS3ACredentials[" + chain + "]";
    }
}
