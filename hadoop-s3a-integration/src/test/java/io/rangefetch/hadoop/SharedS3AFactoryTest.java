package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.SharedFactories;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When two S3A file systems share a Rangefetch factory: the same Hadoop user and the same settings and secrets, from
 * wherever S3A takes them. Each credential source S3A reads is changed alone, and the key must change with it; the
 * key never holds a secret.
 */
class SharedS3AFactoryTest {
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

    @TempDir
    Path directory;

    private static Configuration base() {
        Configuration conf = new Configuration(false);
        conf.set("fs.s3a.endpoint", "https://127.0.0.1:9000");
        conf.set("fs.s3a.path.style.access", "true");
        return conf;
    }

    private SharedFactories.Key key(Configuration conf) throws Exception {
        return SharedS3AFactory.key(conf);
    }

    /** A JCEKS file holding {@code secret} under S3A's secret key alias; the configuration naming it. */
    private Configuration withJceks(String file, String secret) throws Exception {
        Configuration conf = base();
        conf.set(
                CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH,
                "jceks://file" + directory.resolve(file).toAbsolutePath());
        List<CredentialProvider> providers = CredentialProviderFactory.getProviders(conf);
        CredentialProvider provider = providers.get(0);
        provider.createCredentialEntry("fs.s3a.access.key", "AKIDJCEKS".toCharArray());
        provider.createCredentialEntry("fs.s3a.secret.key", secret.toCharArray());
        provider.flush();
        return conf;
    }

    @Test
    void theSameUserAndSettingsShareAndTheKeyHoldsNoSecret() throws Exception {
        Configuration conf = base();
        conf.set("fs.s3a.secret.key", SECRET);
        SharedFactories.Key key = key(conf);
        assertThat(key(new Configuration(conf))).isEqualTo(key);
        assertThat(key.toString()).doesNotContain(SECRET).doesNotContain("secret");
    }

    @Test
    void keysInTheSettingsGlobalPerBucketOrSessionAreTheIdentity() throws Exception {
        SharedFactories.Key plain = key(base());
        for (String option : List.of(
                "fs.s3a.access.key",
                "fs.s3a.secret.key",
                "fs.s3a.session.token",
                "fs.s3a.bucket.b.secret.key",
                "fs.s3a.encryption.key",
                "fs.s3a.assumed.role.arn",
                "fs.s3a.aws.credentials.provider")) {
            Configuration conf = base();
            conf.set(option, "value");
            assertThat(key(conf)).as(option).isNotEqualTo(plain);
        }
    }

    @Test
    void keysOnlyInACredentialProviderFileAreTheIdentityToo() throws Exception {
        Configuration owner = withJceks("owner.jceks", SECRET);
        Configuration sameFileAgain = new Configuration(owner);
        Configuration guest = withJceks("guest.jceks", "another-secret");
        Configuration ownerCopy = withJceks("owner-copy.jceks", SECRET);
        assertThat(key(sameFileAgain)).isEqualTo(key(owner));
        assertThat(key(guest))
                .as("every fs.s3a setting alike, other keys in the file")
                .isNotEqualTo(key(owner));
        assertThat(key(ownerCopy))
                .as("the same keys in another file: the path differs, so another factory (safe)")
                .isNotEqualTo(key(owner));
    }

    @Test
    void anotherHadoopUserIsAnotherIdentity() throws Exception {
        Configuration conf = base();
        SharedFactories.Key mine = key(conf);
        SharedFactories.Key theirs = UserGroupInformation.createRemoteUser("someone-else")
                .doAs((PrivilegedExceptionAction<SharedFactories.Key>) () -> key(conf));
        assertThat(theirs).isNotEqualTo(mine);
        assertThat(key(conf)).isEqualTo(mine);
    }
}
