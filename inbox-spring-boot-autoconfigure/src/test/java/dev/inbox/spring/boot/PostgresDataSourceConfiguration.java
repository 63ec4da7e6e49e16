package dev.inbox.spring.boot;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.testing.TestServers;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A small pool on the test PostgreSQL, as an application's {@code DataSource}. */
@Configuration(proxyBeanMethods = false)
class PostgresDataSourceConfiguration {

    @Bean
    DataSource dataSource() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }
}
