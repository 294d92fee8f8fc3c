import { hrefOf, navigate } from "../routes/router";
import { SearchBox } from "./SearchBox";
import { TokenButton } from "./TokenButton";

export function Header() {
  return (
    <header className="header">
      <a
        className="brand"
        aria-label="provgraph Explorer: home"
        href={hrefOf("/")}
        onClick={(event) => {
          event.preventDefault();
          navigate(hrefOf("/"));
        }}
      >
        <span className="brand-mark" aria-hidden="true">◆</span> <span className="brand-name">provgraph</span> <span className="brand-sub">Explorer</span>
      </a>
      <SearchBox />
      <nav className="header-links">
        <a href="/graphql" title="The GraphQL API (GraphiQL where enabled)">API</a>
        <TokenButton />
      </nav>
    </header>
  );
}
