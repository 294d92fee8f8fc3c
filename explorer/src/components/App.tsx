import { useEffect } from "react";
import { CoverageView } from "../routes/CoverageView";
import { GraphView } from "../routes/GraphView";
import { HomeView } from "../routes/HomeView";
import { PipelineView } from "../routes/PipelineView";
import { useLocation } from "../routes/router";
import { SearchView } from "../routes/SearchView";
import { LiveFeedProvider } from "../state/live-feed";
import { FeedPanel } from "./FeedPanel";
import { Header } from "./Header";

/** The page: a header with the search box, the route's view, the live feed at the side. */
export function App() {
  const { route } = useLocation();
  // "/" anywhere outside a text field puts the cursor in the search box.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.key !== "/" || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
      event.preventDefault();
      document.querySelector<HTMLInputElement>("#search-input")?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <LiveFeedProvider>
      <div className="app">
        <Header />
        <div className="app-body">
          <main className="app-main" id="main">
            {route === "/graph" ? <GraphView /> : route === "/pipeline" ? <PipelineView /> : route === "/coverage" ? <CoverageView /> : route === "/search" ? <SearchView /> : <HomeView />}
          </main>
          <FeedPanel />
        </div>
      </div>
    </LiveFeedProvider>
  );
}
