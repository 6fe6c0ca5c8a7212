/**
 * The limiter engine seam. The self-hosted package runs Bottleneck (in one process, and clustered on
 * Redis for a shared limit); the Cloud edition's build puts cloud/platform/bottleneck.ts in this
 * file's place (an in-process engine on n8n-workflow's sleep), so transport/ imports the engine
 * from here only.
 */
import Bottleneck from 'bottleneck';

export default Bottleneck;
/** The settings the shared source hands the engine (transport/sharedLimit.ts applySettings). */
export type BottleneckSettings = Bottleneck.ConstructorOptions;
