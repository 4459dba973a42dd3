// The deployment under test, not a setting mebo needs: a self-contained
// server (.next/standalone) that runs without the project's node_modules.
/** @type {import('next').NextConfig} */
export default { output: 'standalone' };
