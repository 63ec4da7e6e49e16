package dev.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class EndpointsTest {

    @Test
    void address_readsHostAndPort_orTheSchemesDefaultPort() {
        assertThat(Endpoints.address("jdbc:postgresql://db.local:6543/test?user=u"))
                .isEqualTo(InetSocketAddress.createUnresolved("db.local", 6543));
        assertThat(Endpoints.address("jdbc:postgresql://db.local/test"))
                .isEqualTo(InetSocketAddress.createUnresolved("db.local", 5432));
        assertThat(Endpoints.address("jdbc:mysql://127.0.0.1/test"))
                .isEqualTo(InetSocketAddress.createUnresolved("127.0.0.1", 3306));
        assertThat(Endpoints.address("redis://:secret@cache:7000"))
                .isEqualTo(InetSocketAddress.createUnresolved("cache", 7000));
        assertThat(Endpoints.address("redis://cache")).isEqualTo(InetSocketAddress.createUnresolved("cache", 6379));
    }

    @Test
    void via_replacesOnlyHostAndPort() {
        assertThat(Endpoints.via("jdbc:postgresql://db:5432/test?user=u&password=p", "127.0.0.1", 41000))
                .isEqualTo("jdbc:postgresql://127.0.0.1:41000/test?user=u&password=p");
        assertThat(Endpoints.via("jdbc:mysql://db/test", "127.0.0.1", 41000))
                .isEqualTo("jdbc:mysql://127.0.0.1:41000/test");
        assertThat(Endpoints.via("redis://:secret@cache:6379", "127.0.0.1", 41000))
                .isEqualTo("redis://:secret@127.0.0.1:41000");
    }

    @Test
    void withParameter_startsOrExtendsTheQuery() {
        assertThat(Endpoints.withParameter("redis://h:1", "timeout", "2s")).isEqualTo("redis://h:1?timeout=2s");
        assertThat(Endpoints.withParameter("jdbc:mysql://h/db?user=u", "socketTimeout", "5000"))
                .isEqualTo("jdbc:mysql://h/db?user=u&socketTimeout=5000");
    }

    @Test
    void anEndpointWithoutHost_isRejected() {
        assertThatThrownBy(() -> Endpoints.address("not a url"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a url");
    }
}
